import ArgumentParser

/// `oak bench`: the in-process parts of the benchmark harness (`scripts/bench` drives them).
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmark helpers: seed a realistic database, time an export rebuild, serve a baseline.",
        discussion: "Run the whole benchmark with scripts/bench; see BENCHMARKS.md.",
        subcommands: [BenchSeedCommand.self, BenchExportRebuildCommand.self, BenchBaselineCommand.self, BenchFirstSyncCommand.self]
    )
}
