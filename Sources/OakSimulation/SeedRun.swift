import Foundation

extension SyncSimulation {
    /// The seeds a run takes: `seed` alone when given, else `count` seeds from `first` (a new random one when nil,
    /// returned so that the caller can say how to run the range again); nil for a count below 1 or a `first` that leaves
    /// no room for them.
    public static func seeds(_ seed: UInt64?, count: Int, from first: UInt64?) -> (seeds: [UInt64], first: UInt64?)? {
        if let seed { return ([seed], nil) }
        let first = first ?? UInt64.random(in: 1...(UInt64.max / 2))
        guard count >= 1, first <= UInt64.max - UInt64(count) else { return nil }
        return ((0..<UInt64(count)).map { first + $0 }, first)
    }

    /// Runs `seeds`, `perCore` at a time per core (each seed's world is its own), each of `steps` steps (nil: as
    /// the seed decides); the reports of those that failed, in seed order. `finished` is told the count of seeds
    /// run so far after each one.
    public static func run(
        _ seeds: [UInt64], steps: Int?, perCore: Int, templates: Templates, finished: @Sendable (Int) -> Void = { _ in }
    ) async throws -> [String] {
        try await withThrowingTaskGroup(of: (UInt64, String?).self) { group in
            var next = seeds.makeIterator()
            var failures: [(UInt64, String)] = []
            var done = 0
            for _ in 0..<perCore * ProcessInfo.processInfo.activeProcessorCount {
                guard let seed = next.next() else { break }
                group.addTask { (seed, try await runBounded(seed, steps: steps, templates: templates)) }
            }
            while let (seed, failure) = try await group.next() {
                if let failure { failures.append((seed, failure)) }
                done += 1
                finished(done)
                if let seed = next.next() {
                    group.addTask { (seed, try await runBounded(seed, steps: steps, templates: templates)) }
                }
            }
            return failures.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// A seed's run, or a failure when it does not end within a minute (a sync that never settles is a failure
    /// to report with its seed, not a hung run).
    static func runBounded(_ seed: UInt64, steps: Int?, templates: Templates) async throws -> String? {
        let simulation = SyncSimulation(seed: seed, steps: steps)
        let answer = FirstAnswer()
        return try await withCheckedThrowingContinuation { continuation in
            answer.set(continuation)
            let timeout = Task {
                try await Task.sleep(for: .seconds(60))
                answer.give(.success("seed \(seed) did not end within a minute\nreplay: \(simulation.replay)"))
            }
            // Unstructured: a run stuck on a request nobody answers cannot be cancelled, and is left behind. A run
            // that ends cancels its timeout (thousands of sleeping timers would otherwise pile up over a long run).
            Task {
                answer.give(await Result { try await simulation.run(templates: templates) })
                timeout.cancel()
            }
        }
    }
}

/// The first of two answers, handed to a continuation once.
final class FirstAnswer: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<String?, any Error>?

    func set(_ continuation: CheckedContinuation<String?, any Error>) {
        lock.withLock { self.continuation = continuation }
    }

    func give(_ result: Result<String?, any Error>) {
        let waiting = lock.withLock {
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(with: result)
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
