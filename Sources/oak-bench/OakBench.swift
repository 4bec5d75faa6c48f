import ArgumentParser
import Foundation
import OakStore
import OakStoreSQLite

/// `oak-bench`: the in-process parts of the benchmark harness (`scripts/bench` drives them), kept out of the
/// `oak` binary and the production libraries.
@main
struct OakBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oak-bench",
        abstract: "Benchmark helpers: seed a realistic database, time an export rebuild, serve a baseline, time a first sync.",
        discussion: "Run the whole benchmark with scripts/bench; see BENCHMARKS.md.",
        subcommands: [BenchSeedCommand.self, BenchExportRebuildCommand.self, BenchBaselineCommand.self, BenchFirstSyncCommand.self]
    )
}

/// `--db`: the scratch database a bench command seeds or measures; required, so a bench never picks the user's
/// database by default.
struct BenchDatabaseOptions: ParsableArguments {
    @Option(help: "The scratch database file to seed or measure (required: bench never picks your database).")
    var db: String

    var path: String { db }

    func open() throws -> SQLiteStore {
        do {
            return try SQLiteStore(path: db)
        } catch {
            throw ValidationError("Cannot open the database at \(db): \(error)")
        }
    }
}

/// Writes a result line to standard output at once, so the harness reading the pipe sees it immediately.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
