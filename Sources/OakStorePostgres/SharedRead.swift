import Synchronization

/// One read that serves every caller waiting for it, and never a caller that asked after it started: a caller
/// that arrives while a read runs waits for the next one, which starts as that read ends and serves everyone
/// who arrived in the meantime. Under load, many requests share one round trip, and each still gets a value
/// at least as new as the moment it asked.
package final class SharedRead<Value: Sendable>: Sendable {
    private struct State: ~Copyable {
        var running = false
        var waiting: [CheckedContinuation<Value, any Error>] = []
    }

    private let state = Mutex(State())

    package init() {}

    /// The value, from a read (`read`, or an equivalent another caller gave) that started after this call.
    package func value(_ read: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let starts = state.withLock { state in
                state.waiting.append(continuation)
                if state.running { return false }
                state.running = true
                return true
            }
            if starts { Task { await self.runRounds(read) } }
        }
    }

    /// Reads for whoever is waiting, round after round, until nobody is.
    private func runRounds(_ read: @Sendable () async throws -> Value) async {
        while true {
            let callers = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
                let callers = state.waiting
                state.waiting = []
                if callers.isEmpty { state.running = false }
                return callers
            }
            if callers.isEmpty { return }
            let result: Result<Value, any Error>
            do {
                result = .success(try await read())
            } catch {
                result = .failure(error)
            }
            for caller in callers { caller.resume(with: result) }
        }
    }
}
