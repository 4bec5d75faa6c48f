import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// Fails the statements waiting on a connection when the connection closes. PostgresNIO hands a statement to its
/// channel without watching the write: one handed over just as the database dropped the connection is never
/// answered, and the request that sent it (and a graceful shutdown waiting for that request) would wait forever.
/// One watch per open connection, registered once on its close, holds the statements in flight on it.
final class ConnectionWatch: @unchecked Sendable {
    /// The watches of open connections. An entry leaves when its connection closes; one whose connection is gone
    /// (its address taken by a new connection before the close was seen) is never handed out.
    private static let watches = NIOLockedValueBox<[ObjectIdentifier: ConnectionWatch]>([:])

    private weak var connection: PostgresConnection?
    /// The connection's event loop, for the tasks of its kept statements.
    let executor: EventLoopTaskExecutor
    private let lock = NIOLock()
    private var waiting: [Int: @Sendable () -> Void] = [:]
    private var nextToken = 0
    private var isClosed = false

    private init(_ connection: PostgresConnection) {
        self.connection = connection
        executor = EventLoopTaskExecutor(connection.eventLoop)
    }

    /// The connection's watch, made and registered on its close the first time it is asked for.
    static func of(_ connection: PostgresConnection) -> ConnectionWatch {
        let key = ObjectIdentifier(connection)
        let (watch, isNew) = watches.withLockedValue { watches in
            if let watch = watches[key], watch.connection === connection { return (watch, false) }
            let watch = ConnectionWatch(connection)
            watches[key] = watch
            return (watch, true)
        }
        if isNew {
            connection.closeFuture.whenComplete { _ in
                watches.withLockedValue { watches in
                    if watches[key] === watch { watches[key] = nil }
                }
                watch.close()
            }
        }
        return watch
    }

    /// The answer to a statement, or `unavailable` if the connection closes before it comes: whichever takes the wait
    /// out of `waiting` first answers it.
    func answer<Value: Sendable>(_ future: EventLoopFuture<Value>, unavailable: @escaping @Sendable () -> any Error) async throws -> Value {
        try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Value, any Error>) in
            let token: Int? = lock.withLock {
                guard !isClosed else { return nil }
                nextToken += 1
                waiting[nextToken] = { continuation.resume(throwing: unavailable()) }
                return nextToken
            }
            guard let token else { return continuation.resume(throwing: unavailable()) }
            future.whenComplete { [self] result in
                guard lock.withLock({ waiting.removeValue(forKey: token) }) != nil else { return }
                continuation.resume(with: result)
            }
        }
    }

    private func close() {
        let failures = lock.withLock {
            isClosed = true
            defer { waiting = [:] }
            return Array(waiting.values)
        }
        for fail in failures { fail() }
    }
}
