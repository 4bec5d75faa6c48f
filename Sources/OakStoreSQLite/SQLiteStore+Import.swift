import Foundation
import GRDB
import OakModels
import OakSQLite
import OakStore
import OakStoreKit

/// What an import did (or, in a dry run, would do), record by record.
public struct ImportSummary: Codable, Hashable, Sendable {
    public var created = 0
    public var updated = 0
    public var unchanged = 0
    public var skipped = 0
    /// The records that could not be imported, each with where it is and why.
    public var errors: [String] = []
    /// What was imported with a caveat (a merge that kept a differing value), each with where and why.
    public var warnings: [String] = []

    public init() {}
}

extension SQLiteStore {
    /// Imports an export document (`ExportFile`): its sources by id, its species by name and each species'
    /// sources' data by (species, source). Existing records are updated only where they differ, so importing
    /// the same file twice changes nothing. Stored values are taken as they are (no write rule is applied:
    /// the file holds what a server held). Everything happens in one transaction: when any record fails,
    /// nothing is written and the summary lists every failure; a dry run reports and writes nothing.
    /// - Parameter progress: called with the records done and the total.
    public func importExport(
        _ file: ExportFile, dryRun: Bool = false, progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) async throws -> ImportSummary {
        let total = file.sources.count + file.species.count
        let now = self.now
        return try await importing(dryRun: dryRun) { db, summary in
            var done = 0
            for (index, exported) in file.sources.enumerated() {
                if exported.source.name.isEmpty || exported.source.sourceType.isEmpty {
                    summary.errors.append("sources[\(index)] (id \(exported.source.id)): name and source_type are required")
                } else {
                    try Self.importSource(db, exported.source, into: &summary)
                }
                done += 1
                progress(done, total)
            }
            let sourceIDs = Set(try Int.fetchAll(db, sql: "SELECT id FROM sources"))
            for (index, exported) in file.species.enumerated() {
                let place = "species[\(index)] (\(exported.name))"
                if exported.name.trimmingCharacters(in: .whitespaces).isEmpty {
                    summary.errors.append("species[\(index)]: name is required")
                } else if let unknown = exported.sources.first(where: { !sourceIDs.contains($0.sourceId) }) {
                    summary.errors.append("\(place): sources: no source with id \(unknown.sourceId) exists")
                } else {
                    try Self.importSpecies(db, exported, at: now, into: &summary)
                }
                done += 1
                progress(done, total)
            }
        }
    }

    /// Runs an import's body in one transaction, kept only when the body recorded no error and this is
    /// not a dry run; the summary is returned either way.
    func importing(dryRun: Bool, _ body: @Sendable @escaping (Database, inout ImportSummary) throws -> Void) async throws -> ImportSummary {
        do {
            return try await write { db in
                var summary = ImportSummary()
                try body(db, &summary)
                // Nothing of a failed or rehearsed import stays: throwing rolls the transaction back.
                if !summary.errors.isEmpty || dryRun { throw ImportRolledBack(summary: summary) }
                return summary
            }
        } catch let rolledBack as ImportRolledBack {
            return rolledBack.summary
        }
    }

    /// Ends an import's transaction without keeping anything.
    private struct ImportRolledBack: Error {
        let summary: ImportSummary
    }

    private static func importSource(_ db: Database, _ source: Source, into summary: inout ImportSummary) throws {
        var source = source
        source.speciesCount = nil
        var values = source.columnValues
        if let existing = try db.fetchOne(cachedSQL: "SELECT * FROM sources WHERE id = ?", arguments: [source.id], Source.init(row:)) {
            guard existing != source else {
                summary.unchanged += 1
                return
            }
            try db.update("sources", values, where: "id = ?", [source.id])
            summary.updated += 1
        } else {
            values["id"] = StoredValue(source.id)
            try db.insert(into: "sources", values)
            summary.created += 1
        }
    }

    private static func importSpecies(_ db: Database, _ exported: ExportSpecies, at time: Date, into summary: inout ImportSummary) throws {
        let species = exported.asSpecies
        var changed = false
        if let existing = try db.fetchOne(
            cachedSQL: "SELECT * FROM oak_entries WHERE scientific_name = ?", arguments: [species.scientificName], Species.init(row:))
        {
            if existing != species {
                try saveSpecies(db, species)
                changed = true
            }
        } else {
            try db.insert(into: "oak_entries", species.columnValues)
            summary.created += 1
            for data in exported.sources {
                var record = data.record(of: species.scientificName)
                record.createdAt = time
                record.updatedAt = time
                try insertChecked(db, &record)
            }
            return
        }
        for data in exported.sources {
            var incoming = data.record(of: species.scientificName)
            if var current = try db.fetchOne(
                cachedSQL: "SELECT * FROM species_sources WHERE scientific_name = ? AND source_id = ?",
                arguments: [species.scientificName, data.sourceId], SpeciesSource.init(row:))
            {
                // Identity and times are the row's own; only the described content is compared.
                incoming.id = current.id
                incoming.uuid = current.uuid
                incoming.createdAt = current.createdAt
                incoming.updatedAt = current.updatedAt
                guard incoming != current else { continue }
                incoming.updatedAt = time
                current = incoming
                try saveSpeciesSource(db, current)
            } else {
                incoming.createdAt = time
                incoming.updatedAt = time
                try insertChecked(db, &incoming)
            }
            changed = true
        }
        if changed { summary.updated += 1 } else { summary.unchanged += 1 }
    }
}
