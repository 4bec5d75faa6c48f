import ArgumentParser
import Foundation
import OakBench
import OakModels
import OakStore

/// `oak-bench seed`: fills a database with deterministic synthetic species, species sources and notes.
struct BenchSeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: "Fill a database up to a realistic load (starter data plus generated species, sources and notes).",
        discussion: "Counts are totals to fill up to, so seeding twice adds nothing the second time."
    )

    @OptionGroup var database: BenchDatabaseOptions

    @Option(help: "Species in all, the starter dataset's included.")
    var species = 734

    @Option(help: "Rows of the reference sources 1 and 2.")
    var speciesSources = 600

    @Option(help: "Notes: rows of source 3 and of extra observer sources created as needed.")
    var notes = 10_000

    func run() async throws {
        guard species >= 1, speciesSources >= 0, notes >= 0 else {
            throw ValidationError("--species must be at least 1; --species-sources and --notes must not be negative")
        }
        guard speciesSources <= 2 * species else {
            throw ValidationError("--species-sources can be at most twice --species (one row per species and source)")
        }
        let store = try database.open()
        let start = ContinuousClock.now
        let summary = try await store.addSyntheticLoad(SyntheticLoad(species: species, speciesSources: speciesSources, notes: notes))
        let elapsed = ContinuousClock.now - start
        say(
            "Seeded \(database.path) in \(Int(elapsed.inSeconds * 1000)) ms: +\(summary.speciesAdded) species, "
                + "+\(summary.speciesSourcesAdded) species sources, +\(summary.notesAdded) notes, +\(summary.sourcesAdded) sources")
    }
}
