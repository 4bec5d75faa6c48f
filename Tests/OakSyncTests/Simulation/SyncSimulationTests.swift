import Foundation
import OakModels
import Testing

/// The sync simulator over many seeds (`SyncSimulation`). `OAK_SIM_SEEDS` sets how many: unless told, 300 in a
/// debug build (every `swift test`) and 10,000 in a release build (`scripts/simulate`, which CI runs), from
/// `OAK_SIM_FIRST_SEED` (a new random one each run, printed). `OAK_SIM_SEED` runs one seed alone, as the replay
/// command a failure prints does (`scripts/simulate --seed N`).
@Suite("Sync simulator")
struct SyncSimulationTests {
    /// Steps per seed (`OAK_SIM_STEPS`), else from 20 to 100 as the seed decides: short runs are cheap, and some
    /// failures take a note made, synced, deleted, made again and deleted elsewhere, which needs a long one.
    static let steps = ProcessInfo.processInfo.environment["OAK_SIM_STEPS"].flatMap(Int.init)

    #if DEBUG
    static let defaultSeeds = 300
    /// Seeds at a time per core. In a debug build the simulator runs inside `swift test`, beside every other suite,
    /// whose timing-sensitive tests it must not starve of the shared task pool: one per core.
    static let seedsPerCore = 1
    #else
    static let defaultSeeds = 10_000
    /// Seeds at a time per core when `scripts/simulate` runs the simulator alone: four (a seed's tasks often wait on
    /// one another, which leaves a core idle with fewer; more only add switching: BENCHMARKS.md, "The sync
    /// simulator's cost").
    static let seedsPerCore = 4
    #endif

    @Test("every seed: devices writing offline, a network that loses, repeats, delays and reorders, skewed clocks and restores converge to the written rule")
    func seeds() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seeds: [UInt64]
        if let one = environment["OAK_SIM_SEED"].flatMap(UInt64.init) {
            seeds = [one]
        } else {
            let count = environment["OAK_SIM_SEEDS"].flatMap(Int.init) ?? Self.defaultSeeds
            let first = environment["OAK_SIM_FIRST_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...(UInt64.max / 2))
            print("Sync simulator: \(count) seeds from \(first) (OAK_SIM_FIRST_SEED=\(first) runs them again)")
            seeds = (0..<UInt64(count)).map { first + $0 }
        }
        let templates = try await SyncSimulation.makeTemplates()
        defer { try? FileManager.default.removeItem(at: templates.directory) }
        let failures = try await Self.run(seeds, templates: templates)
        for failure in failures.prefix(3) { Issue.record(Comment(rawValue: failure)) }
        #expect(failures.isEmpty, "\(failures.count) of \(seeds.count) seeds broke the rule")
    }

    @Test("a server given back after a run (notes written, a species added, a backup restored) holds what a new copy of the template holds, table by table")
    func serverGivenBackHoldsTheTemplate() async throws {
        let templates = try await SyncSimulation.makeTemplates()
        defer { try? FileManager.default.removeItem(at: templates.directory) }
        let server = try templates.servers.take()
        _ = try await server.store.createNote(NoteInput(scientificName: "alba"))
        try await server.takeBackup()
        var patch = SpeciesPatch()
        patch.scientificName = .value("robur")
        _ = try await server.store.createSpecies(patch)
        try server.restore()
        _ = try await server.store.createNote(NoteInput(scientificName: "rubra"))
        server.clock.advance(milliseconds: 5000)
        #expect(try ServerTemplate(path: server.path).tables != templates.server.tables)

        try await templates.servers.giveBack(server)
        let again = try templates.servers.take()
        #expect(again === server)
        #expect(try ServerTemplate(path: again.path).tables == templates.server.tables)
        #expect(again.clock.now == SimulatedClock.start && !again.hasBackup)
    }

    /// Runs the seeds `seedsPerCore` per core at a time (each seed's world is its own); the reports of those that
    /// failed, in seed order.
    static func run(_ seeds: [UInt64], templates: SyncSimulation.Templates) async throws -> [String] {
        try await withThrowingTaskGroup(of: (UInt64, String?).self) { group in
            var next = seeds.makeIterator()
            var failures: [(UInt64, String)] = []
            for _ in 0..<seedsPerCore * ProcessInfo.processInfo.activeProcessorCount {
                guard let seed = next.next() else { break }
                group.addTask { (seed, try await runBounded(seed, templates: templates)) }
            }
            while let (seed, failure) = try await group.next() {
                if let failure { failures.append((seed, failure)) }
                if let seed = next.next() {
                    group.addTask { (seed, try await runBounded(seed, templates: templates)) }
                }
            }
            return failures.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// A seed's run, or a failure when it does not end within a minute (a sync that never settles is a failure
    /// to report with its seed, not a hung test run).
    static func runBounded(_ seed: UInt64, templates: SyncSimulation.Templates) async throws -> String? {
        let answer = FirstAnswer()
        return try await withCheckedThrowingContinuation { continuation in
            answer.set(continuation)
            let timeout = Task {
                try await Task.sleep(for: .seconds(60))
                answer.give(.success("seed \(seed) did not end within a minute\nreplay: scripts/simulate --seed \(seed)"))
            }
            // Unstructured: a run stuck on a request nobody answers cannot be cancelled, and is left behind. A run
            // that ends cancels its timeout (thousands of sleeping timers would otherwise pile up over a long run).
            Task {
                answer.give(await Result { try await SyncSimulation(seed: seed, steps: steps).run(templates: templates) })
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
