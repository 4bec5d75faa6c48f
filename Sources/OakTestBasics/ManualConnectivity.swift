import Foundation
import OakSync

/// Connectivity the test switches by hand.
public final class ManualConnectivity: Connectivity, @unchecked Sendable {
    private let lock = NSLock()
    private var online: Bool
    private var continuations: [AsyncStream<Bool>.Continuation] = []

    public init(online: Bool = true) {
        self.online = online
    }

    public var isOnline: Bool { lock.withLock { online } }

    public func changes() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        lock.withLock { continuations.append(continuation) }
        return stream
    }

    public func set(online: Bool) {
        let targets = lock.withLock {
            self.online = online
            return continuations
        }
        for continuation in targets { continuation.yield(online) }
    }
}
