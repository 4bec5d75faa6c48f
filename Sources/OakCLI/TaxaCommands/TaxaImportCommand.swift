import Foundation
import OakModels

extension TaxaCommands {
    /// The taxa file format: a list per level, each taxon with name, parent, author, notes and links.
    struct TaxaFile: Decodable {
        var subgenera: [TaxonPatch]?
        var sections: [TaxonPatch]?
        var subsections: [TaxonPatch]?
        var complexes: [TaxonPatch]?
    }

    /// Imports a taxa file (YAML): new taxa are created, changed ones updated, parents before children.
    public static func importTaxa(_ context: CommandContext, path: String, dryRun: Bool) async throws {
        let store = try Imports.database(context, for: "taxa import")
        let file = try RecordFile.decode(TaxaFile.self, path: path, what: "a taxa file (subgenera, sections, subsections, complexes)")
        let groups: [(level: TaxonLevel, records: [TaxonPatch])] = [
            (.subgenus, file.subgenera ?? []), (.section, file.sections ?? []), (.subsection, file.subsections ?? []),
            (.complex, file.complexes ?? []),
        ]
        let summary = try await Imports.run(context, "Importing taxa") { progress in try await store.importTaxa(groups, dryRun: dryRun, progress: progress) }
        try Imports.report(context, summary, path: path, dryRun: dryRun)
    }
}
