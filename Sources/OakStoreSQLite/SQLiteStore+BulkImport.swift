import Foundation
import GRDB
import OakModels
import OakStore
import OakStoreKit

/// What `importBulk` does with a species that already exists.
public enum BulkConflictPolicy: String, CaseIterable, Sendable {
    /// Leave the existing species as it is.
    case skip
    /// Replace the fields the file gives.
    case overwrite
    /// Add the file's list entries (synonyms, hybrids…) and fill the fields the species lacks; differing
    /// values already set are kept and reported.
    case merge
}

extension SQLiteStore {
    /// Imports species records (the original CLI's bulk format: one species-intrinsic record per entry, keys
    /// as the API's) attributed to source `sourceId`, which must exist. Each record is validated as the API
    /// validates a write; any invalid record means nothing is written. One transaction; a dry run writes nothing.
    public func importBulk(
        _ entries: [SpeciesPatch], sourceId: Int, onConflict policy: BulkConflictPolicy, dryRun: Bool = false,
        progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) async throws -> ImportSummary {
        try await importing(dryRun: dryRun) { db, summary in
            _ = try Self.fetchSource(db, sourceId)
            for (index, entry) in entries.enumerated() {
                let incoming: Species
                do {
                    incoming = try Species(creating: entry)
                } catch let error as OakError {
                    summary.errors.append("[\(index)]\(Self.named(entry)): \(error.summary)")
                    progress(index + 1, entries.count)
                    continue
                }
                try Self.importBulkSpecies(db, incoming, entry, place: "[\(index)] (\(incoming.scientificName))", policy, into: &summary)
                progress(index + 1, entries.count)
            }
        }
    }

    /// Imports a taxa file's records (name, parent, author, notes, links per level), parents before
    /// children: new taxa are created, changed ones updated. One transaction; a dry run writes nothing.
    public func importTaxa(
        _ taxa: [(level: TaxonLevel, records: [TaxonPatch])], dryRun: Bool = false,
        progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) async throws -> ImportSummary {
        let ordered = TaxonLevel.allCases.flatMap { level in
            taxa.filter { $0.level == level }.flatMap { group in group.records.enumerated().map { (level, $0.offset, $0.element) } }
        }
        return try await importing(dryRun: dryRun) { db, summary in
            for (done, (level, index, record)) in ordered.enumerated() {
                var patch = record
                patch.level = .value(level.rawValue)
                do {
                    let creation = try TaxonWrite.create(patch)
                    let taxon = try creation.checked(parent: try Self.findTaxon(db, creation.parentToFind))
                    if let existing = try Self.findTaxon(db, taxon.key) {
                        var current = existing
                        current.speciesCount = nil
                        if current == taxon {
                            summary.unchanged += 1
                        } else {
                            try Self.saveTaxon(db, taxon)
                            summary.updated += 1
                        }
                    } else {
                        try db.insert(into: "taxa", taxon.columnValues)
                        summary.created += 1
                    }
                } catch let error as OakError {
                    let name = record.name.value.map { " (\($0))" } ?? ""
                    summary.errors.append("\(level.plural)[\(index)]\(name): \(error.summary)")
                }
                progress(done + 1, ordered.count)
            }
        }
    }

    private static func importBulkSpecies(
        _ db: Database, _ incoming: Species, _ entry: SpeciesPatch, place: String, _ policy: BulkConflictPolicy,
        into summary: inout ImportSummary
    ) throws {
        guard let existing = try? fetchSpecies(db, incoming.scientificName) else {
            try db.insert(into: "oak_entries", incoming.columnValues)
            summary.created += 1
            return
        }
        var updated = existing
        switch policy {
        case .skip:
            summary.skipped += 1
            return
        case .overwrite:
            do {
                try updated.apply(entry)
            } catch let error as OakError {
                return summary.errors.append("\(place): \(error.summary)")
            }
        case .merge:
            summary.warnings += merge(incoming, into: &updated).map { "\(place): \($0)" }
        }
        guard updated != existing else {
            summary.unchanged += 1
            return
        }
        try saveSpecies(db, updated)
        summary.updated += 1
    }

    /// Adds `incoming`'s list entries to `species` and fills its empty fields; returns the fields whose
    /// differing values were kept.
    private static func merge(_ incoming: Species, into species: inout Species) -> [String] {
        func union(_ base: [String], _ added: [String]) -> [String] {
            base + added.filter { !base.contains($0) }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        }
        species.hybrids = union(species.hybrids, incoming.hybrids)
        species.closelyRelatedTo = union(species.closelyRelatedTo, incoming.closelyRelatedTo)
        species.subspeciesVarieties = union(species.subspeciesVarieties, incoming.subspeciesVarieties)
        species.synonyms = union(species.synonyms, incoming.synonyms)
        var kept: [String] = []
        let fields: [(String, WritableKeyPath<Species, String?>)] = [
            ("author", \.author), ("conservation_status", \.conservationStatus), ("subgenus", \.subgenus), ("section", \.section),
            ("subsection", \.subsection), ("complex", \.complex), ("parent1", \.parent1), ("parent2", \.parent2),
        ]
        for (field, path) in fields {
            guard let value = incoming[keyPath: path] else { continue }
            if let current = species[keyPath: path] {
                if current != value { kept.append("\(field): kept '\(current)', the file has '\(value)'") }
            } else {
                species[keyPath: path] = value
            }
        }
        return kept
    }

    private static func named(_ entry: SpeciesPatch) -> String {
        entry.scientificName.value.map { " (\($0))" } ?? ""
    }
}
