import OakSync
import OakTestSupport
import Testing

@Suite("Retry policy")
struct RetryPolicyTests {
    let policy = RetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(100), maxDelay: .seconds(1))

    @Test("Backoff doubles per attempt, is capped, and jitter scales it by one half to one")
    func exponentialBackoff() {
        #expect(policy.delay(attempt: 0, retryAfter: nil, jitter: 1) == .milliseconds(100))
        #expect(policy.delay(attempt: 3, retryAfter: nil, jitter: 1) == .milliseconds(800))
        #expect(policy.delay(attempt: 3, retryAfter: nil, jitter: 0) == .milliseconds(400))
        #expect(policy.delay(attempt: 20, retryAfter: nil, jitter: 1) == .seconds(1))
    }

    @Test("Retry-After is honoured when it asks for longer than the backoff")
    func retryAfter() {
        #expect(policy.delay(attempt: 0, retryAfter: .seconds(3), jitter: 1) == .seconds(3))
        #expect(policy.delay(attempt: 3, retryAfter: .milliseconds(10), jitter: 1) == .milliseconds(800))
    }
}
