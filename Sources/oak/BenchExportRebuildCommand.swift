import ArgumentParser
import Foundation
import OakModels
import OakStore

/// `oak bench export-rebuild`: times building the full export from the database (no cache), in process.
struct BenchExportRebuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-rebuild",
        abstract: "Time a rebuild of the export document; prints JSON with the median in milliseconds."
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "How many rebuilds to time.")
    var runs = 20

    func run() async throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        var times: [Double] = []
        var bytes = 0
        for _ in 0..<runs {
            // A newly opened store has an empty export cache, so its first export is a full rebuild.
            let store = try database.open()
            let start = ContinuousClock.now
            bytes = try await store.export().body.readableBytes
            times.append((ContinuousClock.now - start).inSeconds * 1000)
            try store.close()
        }
        times.sort()
        say(#"{"runs": \#(runs), "median_ms": \#(times[runs / 2]), "min_ms": \#(times[0]), "bytes": \#(bytes)}"#)
    }
}
