import ArgumentParser

/// `oak bench`: the in-process parts of the benchmark harness (`scripts/bench` drives them).
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmark helpers: seed a realistic database, time an export rebuild, serve a baseline.",
        discussion: "Run the whole benchmark with scripts/bench; see BENCHMARKS.md.",
        subcommands: [BenchSeedCommand.self, BenchExportRebuildCommand.self, BenchBaselineCommand.self]
    )
}

extension Duration {
    /// The duration in milliseconds, for timings printed by the bench commands.
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
