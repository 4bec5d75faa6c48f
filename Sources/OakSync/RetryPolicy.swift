import Foundation
import OakClient

/// Waits; injectable so tests can shrink every delay.
public protocol Sleeper: Sendable {
    func sleep(for duration: Duration) async throws
}

/// Sleeps on the task clock.
public struct TaskSleeper: Sleeper {
    public init() {}

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}

/// Exponential backoff with jitter for transient failures (network errors, 5xx, 429), honouring `Retry-After`.
public struct RetryPolicy: Sendable {
    /// Tries per request, the first included.
    public var maxAttempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    public init(maxAttempts: Int = 5, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(60)) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The wait before retry number `attempt` (0 for the first retry): `baseDelay · 2^attempt` capped at
    /// `maxDelay`, scaled by a random factor in 0.5...1 (`jitter`), and never shorter than `Retry-After`.
    public func delay(attempt: Int, retryAfter: Duration?, jitter: Double) -> Duration {
        let exponential = min(baseDelay * (1 << min(attempt, 30)), maxDelay)
        let jittered = exponential * (0.5 + 0.5 * min(max(jitter, 0), 1))
        return max(jittered, retryAfter ?? .zero)
    }

    /// Runs `operation`, retrying transient failures; the last failure is thrown.
    func run<Value>(sleeper: any Sleeper, _ operation: () async throws -> Value) async throws -> Value {
        var attempt = 0
        while true {
            do {
                return try await operation()
            } catch let error as OakClientError where error.isTransient && attempt + 1 < maxAttempts {
                try await sleeper.sleep(for: delay(attempt: attempt, retryAfter: error.retryAfter, jitter: Double.random(in: 0...1)))
                attempt += 1
            }
        }
    }
}
