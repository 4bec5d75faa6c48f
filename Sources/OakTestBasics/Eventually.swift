/// Whether `condition` holds within `timeout`, checked every `interval`: for a state that follows an action a moment
/// later (a change notification heard, an instance listening again, a page read ahead in the background). It runs on
/// the caller's actor, so `condition` may read what that actor holds (an app model on the main actor).
public func eventually(
    within timeout: Duration, every interval: Duration = .milliseconds(20), isolation: isolated (any Actor)? = #isolation,
    _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: interval)
    }
    return false
}
