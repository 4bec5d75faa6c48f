import Foundation

/// Hands every value to all current subscribers, each through its own AsyncStream.
final class Broadcaster<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuations: [UUID: AsyncStream<Value>.Continuation] = [:]
    private var latest: Value?
    private let replaysLatest: Bool

    /// With `replaysLatest`, a new subscriber first receives the last value sent.
    init(replaysLatest: Bool = false) {
        self.replaysLatest = replaysLatest
    }

    func stream() -> AsyncStream<Value> {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(16))
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.continuations.removeValue(forKey: id) }
        }
        lock.withLock {
            continuations[id] = continuation
            if replaysLatest, let latest { continuation.yield(latest) }
        }
        return stream
    }

    func yield(_ value: Value) {
        let targets = lock.withLock {
            latest = value
            return Array(continuations.values)
        }
        for continuation in targets { continuation.yield(value) }
    }

    /// Ends every subscriber's stream.
    func finish() {
        let targets = lock.withLock { Array(continuations.values) }
        for continuation in targets { continuation.finish() }
    }
}
