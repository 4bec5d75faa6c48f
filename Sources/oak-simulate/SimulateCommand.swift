import ArgumentParser
import Foundation
import OakSimulation

/// `oak-simulate`: the sync simulator over many seeds, as `scripts/simulate` runs it (built in release, with only
/// what the simulator needs). Each option's default comes from its environment variable, as the test suite reads
/// them, so CI's fixed range (`OAK_SIM_FIRST_SEED=1`) holds for both.
@main
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oak-simulate",
        abstract: "Run the sync simulator over many seeds; exit 1 when any seed breaks the sync rule.",
        discussion: """
            Three devices with the real SyncEngine, a real SQLite store, and a network, clocks and restores that one \
            seed drives. A seed that breaks the rule is reported with the steps it took, what the oracle expected, \
            what the server and devices hold, and the line that replays it.
            """
    )

    @Option(help: "How many seeds to run (default: OAK_SIM_SEEDS, else 10,000).")
    var seeds: Int?

    @Option(help: "The first seed of the range (default: OAK_SIM_FIRST_SEED, else a new random one, printed).")
    var firstSeed: UInt64?

    @Option(help: "Run this one seed alone, as a failure's replay line says (default: OAK_SIM_SEED).")
    var seed: UInt64?

    @Option(help: "Steps per seed (default: OAK_SIM_STEPS, else from 20 to 100, as the seed decides).")
    var steps: Int?

    /// Seeds at a time per core: a seed's tasks often wait on one another, which leaves a core idle with fewer;
    /// more only add switching (BENCHMARKS.md, "The sync simulator's cost").
    static let seedsPerCore = 4

    mutating func validate() throws {
        let environment = ProcessInfo.processInfo.environment
        seeds = try seeds ?? Self.number("OAK_SIM_SEEDS", in: environment)
        firstSeed = try firstSeed ?? Self.number("OAK_SIM_FIRST_SEED", in: environment)
        seed = try seed ?? Self.number("OAK_SIM_SEED", in: environment)
        steps = try steps ?? Self.number("OAK_SIM_STEPS", in: environment)
        if let seeds, seeds < 1 { throw ValidationError("--seeds must be at least 1") }
        if let steps, steps < 1 { throw ValidationError("--steps must be at least 1") }
    }

    func run() async throws {
        let count = seeds ?? 10_000
        guard let (list, first) = SyncSimulation.seeds(seed, count: count, from: firstSeed) else {
            throw ValidationError("--first-seed leaves no room for \(count) seeds")
        }
        if let first { print("Sync simulator: \(count) seeds from \(first) (--first-seed \(first) runs them again)") }
        let started = ContinuousClock.now
        let templates = try await SyncSimulation.makeTemplates()
        defer { try? FileManager.default.removeItem(at: templates.directory) }
        let total = list.count
        let failures = try await SyncSimulation.run(list, steps: steps, perCore: Self.seedsPerCore, templates: templates) { done in
            // On standard error, which is not buffered: progress as it comes, also into a pipe or a CI log.
            if done % 1000 == 0 && done < total { FileHandle.standardError.write(Data("  \(done) of \(total) seeds\n".utf8)) }
        }
        let seconds = (ContinuousClock.now - started).components.seconds
        for failure in failures.prefix(3) { print("\n" + failure) }
        guard failures.isEmpty else {
            print("\n\(total == 1 ? "The seed" : "\(failures.count) of \(total) seeds") broke the sync rule (\(seconds) s)")
            throw ExitCode.failure
        }
        print("\(total == 1 ? "The seed" : "\(total) seeds") kept the sync rule (\(seconds) s)")
    }

    /// The number an environment variable holds, nil when unset; a value that is not a number is a usage error.
    private static func number<Number: FixedWidthInteger>(_ name: String, in environment: [String: String]) throws -> Number? {
        guard let text = environment[name], !text.isEmpty else { return nil }
        guard let value = Number(text) else { throw ValidationError("\(name) must be a whole number, not \(text)") }
        return value
    }
}
