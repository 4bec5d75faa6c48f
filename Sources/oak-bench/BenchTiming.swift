import OakModels

/// How long `body` takes, in milliseconds.
func milliseconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    return (ContinuousClock.now - start).inSeconds * 1000
}

/// The median, to a hundredth of a millisecond.
func median(_ times: [Double]) -> Double {
    (times.sorted()[times.count / 2] * 100).rounded() / 100
}
