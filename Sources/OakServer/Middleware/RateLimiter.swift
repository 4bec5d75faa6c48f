import Foundation
import OakModels

/// Per-client token buckets. Memory is bounded: when more than `maxClients` buckets exist, idle
/// (refilled) buckets are evicted first, then the least recently used.
public final class RateLimiter: @unchecked Sendable {
    /// A bucket's size and refill rate.
    public struct Policy: Sendable, Hashable {
        public var capacity: Double
        public var refillPerSecond: Double

        public init(capacity: Double, refillPerSecond: Double) {
            self.capacity = capacity
            self.refillPerSecond = refillPerSecond
        }

        public static func perSecond(_ count: Int) -> Policy { Policy(capacity: Double(count), refillPerSecond: Double(count)) }
        public static func perMinute(_ count: Int) -> Policy { Policy(capacity: Double(count), refillPerSecond: Double(count) / 60) }
    }

    /// The outcome of one request against its bucket.
    public struct Decision: Sendable, Equatable {
        public var allowed: Bool
        public var limit: Int
        public var remaining: Int
        /// Seconds until the bucket is full again.
        public var resetSeconds: Int
        /// Seconds until one more request is allowed (when refused).
        public var retryAfterSeconds: Int
    }

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    private let lock = NSLock()
    private var buckets: [String: Bucket] = [:]
    private let clock: @Sendable () -> Double
    public let maxClients: Int

    /// - Parameter clock: seconds on a monotonic scale; tests inject a fast one.
    public init(maxClients: Int = 10_000, clock: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds) {
        self.maxClients = maxClients
        self.clock = clock
    }

    public static func monotonicSeconds() -> Double {
        let elapsed: Duration = ContinuousClock.now - ContinuousClock.Instant.processStart
        return elapsed.inSeconds
    }

    /// Takes one token from the bucket `key` under `policy`.
    public func take(_ key: String, policy: Policy) -> Decision {
        let now = clock()
        return lock.withLock {
            var bucket = buckets[key] ?? Bucket(tokens: policy.capacity, updated: now)
            bucket.tokens = min(policy.capacity, bucket.tokens + (now - bucket.updated) * policy.refillPerSecond)
            bucket.updated = now
            let allowed = bucket.tokens >= 1
            if allowed { bucket.tokens -= 1 }
            buckets[key] = bucket
            if buckets.count > maxClients { evict(now: now, policy: policy) }
            return Decision(
                allowed: allowed, limit: Int(policy.capacity), remaining: Int(bucket.tokens.rounded(.down)),
                resetSeconds: Int(((policy.capacity - bucket.tokens) / policy.refillPerSecond).rounded(.up)),
                retryAfterSeconds: allowed ? 0 : max(1, Int(((1 - bucket.tokens) / policy.refillPerSecond).rounded(.up))))
        }
    }

    /// How many clients are tracked.
    public var trackedClients: Int { lock.withLock { buckets.count } }

    private func evict(now: Double, policy: Policy) {
        let refillTime = policy.capacity / policy.refillPerSecond
        buckets = buckets.filter { now - $0.value.updated < refillTime }
        if buckets.count > maxClients {
            let oldest = buckets.sorted { $0.value.updated < $1.value.updated }.prefix(buckets.count - maxClients * 9 / 10)
            for (key, _) in oldest { buckets[key] = nil }
        }
    }
}

extension ContinuousClock.Instant {
    /// A fixed reference point, so instants can be turned into plain seconds.
    static let processStart: ContinuousClock.Instant = .now
}
