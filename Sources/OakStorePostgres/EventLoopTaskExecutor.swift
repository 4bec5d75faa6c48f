import NIOCore

/// An event loop as the executor of the tasks that prefer it (`Task(executorPreference:)`): such a task starts and
/// resumes on the loop. A kept statement's task runs on the loop of its connection (`PostgresSession.rows`), where
/// PostgresNIO hands the statement to the channel and its rows arrive, so that the task's steps wake no thread of
/// the global pool between them, nor the loop to hand it the statement.
final class EventLoopTaskExecutor: TaskExecutor {
    private let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
