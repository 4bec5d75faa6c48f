import Dispatch
import GRDB
import GRDBSQLite
import Synchronization

/// Copies the write-ahead log back into the database file in the background, on a connection of its own,
/// instead of in the commit that happened to fill it. SQLite's own automatic checkpoint runs inside the commit
/// of whichever write passes 1,000 pages of log, so that write would wait for the copy and its file syncs (see
/// BENCHMARKS.md, "Server round 2", item 16). The writer reports the log's length after each commit
/// (`install(on:)`); past `pagesBeforeCheckpoint` one checkpoint at a time runs beside the next writes, which
/// SQLite allows: a passive checkpoint copies what no reader still needs, and the writer starts the log again
/// from its beginning once everything was copied. Writes without a pause can keep that from happening (each
/// checkpoint leaves the write made meanwhile), so past twice as many pages the commit checkpoints itself, as
/// SQLite would.
final class LogCheckpointer: Sendable {
    /// Pages of log after which a checkpoint runs in the background: 16 MB with 4 KiB pages, four times SQLite's
    /// default. A checkpoint copies each page once however often it was written, and the pages a push writes
    /// are mostly the same index pages again (its notes' ids land all over the id indexes): at SQLite's bound a
    /// push of 1,000 notes sets off several checkpoints, most of them copying the same pages (see BENCHMARKS.md,
    /// "Server round 2", item 17).
    static let pagesBeforeCheckpoint: Int32 = 4000
    /// Pages of log after which the commit checkpoints before it returns.
    static let pagesBeforeCheckpointInCommit: Int32 = 8000

    private let path: String
    private let state = Mutex(State())

    private struct State {
        /// The checkpoint's connection, opened when first needed.
        var connection: DatabaseQueue?
        var running = false
        var closed = false
    }

    init(path: String) {
        self.path = path
    }

    /// Makes the writer's connection report its log's length to this checkpointer after every commit (its
    /// automatic checkpoint is off from then on: SQLite's is a hook of the same kind). The connection
    /// must not outlive this checkpointer.
    func install(on db: Database) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(
            db.sqliteConnection,
            { context, connection, _, pages in
                if pages >= LogCheckpointer.pagesBeforeCheckpointInCommit {
                    // Fails at once while the background checkpoint runs; a later commit tries again.
                    sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                } else if let context, pages >= LogCheckpointer.pagesBeforeCheckpoint {
                    Unmanaged<LogCheckpointer>.fromOpaque(context).takeUnretainedValue().checkpointSoon()
                }
                return SQLITE_OK
            }, context)
    }

    /// Starts a passive checkpoint on another thread unless one is running.
    private func checkpointSoon() {
        let starts = state.withLock { state in
            if state.running || state.closed { return false }
            state.running = true
            return true
        }
        guard starts else { return }
        DispatchQueue.global(qos: .utility).async {
            // A failed checkpoint (another process's running, the file gone) is retried after a later commit.
            _ = try? self.connection()?.writeWithoutTransaction { try $0.checkpoint(.passive) }
            self.state.withLock { $0.running = false }
        }
    }

    /// The checkpoint's connection; only `checkpointSoon`'s one running checkpoint opens it. None once the
    /// checkpointer is closed: a checkpoint started just before `close` must not open a connection after it.
    private func connection() throws -> DatabaseQueue? {
        let (closed, open) = state.withLock { ($0.closed, $0.connection) }
        if closed { return nil }
        if let open { return open }
        var configuration = Configuration()
        configuration.label = "checkpoint"
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -64") }
        let opened = try DatabaseQueue(path: path, configuration: configuration)
        let kept = state.withLock { state in
            guard !state.closed else { return false }
            state.connection = opened
            return true
        }
        guard kept else {
            try opened.close()
            return nil
        }
        return opened
    }

    /// Closes the checkpoint's connection and starts no more checkpoints (the store is closing). A
    /// checkpoint running now finishes first.
    func close() throws {
        let connection = state.withLock { state in
            state.closed = true
            return state.connection
        }
        try connection?.close()
    }
}
