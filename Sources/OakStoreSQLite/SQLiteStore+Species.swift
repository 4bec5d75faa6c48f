import Foundation
import GRDB
import NIOCore
import OakModels
import OakSQLite
import OakStore
import OakStoreKit

extension SQLiteStore: SpeciesRepository {
    public func listSpecies(filter: SpeciesFilter, limit: Int, offset: Int) async throws -> Page<Species> {
        var sql = SQLFilter()
        for (column, value) in [
            ("subgenus", filter.subgenus), ("section", filter.section), ("subsection", filter.subsection),
            ("complex", filter.complex),
        ] {
            sql.add("\(column) = ? COLLATE NOCASE", value)
        }
        sql.add("is_hybrid = ?", filter.isHybrid)
        sql.add("scientific_name IN (SELECT scientific_name FROM species_sources WHERE source_id = ?)", filter.sourceId)
        let query = sql
        return try read { db in
            try query.page(db, from: "oak_entries", orderBy: "scientific_name", limit: limit, offset: offset, Species.init(row:))
        }
    }

    public func species(named name: String) async throws -> Species {
        try read { db in try Self.fetchSpecies(db, name) }
    }

    public func speciesFull(named name: String) async throws -> SpeciesFull {
        try read { db in
            SpeciesFull(species: try Self.fetchSpecies(db, name), sources: try Self.attributedSources(db, of: name))
        }
    }

    public func encodedSpeciesFull(named name: String) async throws -> ByteBuffer {
        try read { db in
            let species = try db.cachedStatement(sql: Self.speciesRecordByStoredSpelling)
            let speciesRow = try Row.fetchCursor(species, arguments: StatementArguments(Species.storedSpellingsPadded(of: name)))
            guard try speciesRow.next() != nil else { throw OakError.notFound("Species", Species.normalizedName(name)) }
            let speciesColumns = StatementColumns(species)
            let sources = try db.cachedStatement(sql: Self.sourceRowsOfSpecies)
            let sourceRows = try Row.fetchCursor(sources, arguments: [speciesColumns.string(SpeciesRecordColumn.scientificName.rawValue)])
            var json = JSONOutput(capacity: 4096)
            try json.beginSpeciesFull(speciesColumns)
            var first = true
            while try sourceRows.next() != nil {
                try json.speciesFullSourceRow(StatementColumns(sources), first: first)
                first = false
            }
            try json.endSpeciesFull(speciesColumns)
            // The columns read the statements the cursors step; the cursors reset them when they go.
            withExtendedLifetime((speciesRow, sourceRows)) {}
            return json.takeByteBuffer()
        }
    }

    /// A species' source rows with their sources' names, preferred first, then by source id (the argument: the
    /// species' stored name).
    private static let sourceRowsOfSpecies = "\(AttributedSourceColumn.selection) WHERE ss.scientific_name = ? ORDER BY \(AttributedSourceColumn.order)"

    public func createSpecies(_ patch: SpeciesPatch) async throws -> Species {
        let new = try Species(creating: patch)
        return try await write { db in
            let species = try SpeciesWrite.create(new, alreadyExists: try Self.speciesExists(db, new.scientificName))
            try db.insert(into: "oak_entries", species.columnValues)
            return species
        }
    }

    public func updateSpecies(named name: String, with patch: SpeciesPatch) async throws -> Species {
        try await write { db in
            var species = try Self.fetchSpecies(db, name)
            try species.apply(patch)
            try Self.saveSpecies(db, species)
            return species
        }
    }

    public func deleteSpecies(named name: String) async throws {
        try await write { db in
            let species = try Self.fetchSpecies(db, name)
            try StillReferenced.checkSpeciesDelete(
                species,
                hybrids: try String.fetchAll(
                    db, sql: "SELECT scientific_name FROM oak_entries WHERE parent1 = ? OR parent2 = ? ORDER BY scientific_name",
                    arguments: [species.scientificName, species.scientificName]))
            // Explicit, so legacy files without the cascading foreign key lose nothing extra either.
            try db.execute(cachedSQL: "DELETE FROM species_sources WHERE scientific_name = ?", arguments: [species.scientificName])
            try db.execute(cachedSQL: "DELETE FROM oak_entries WHERE scientific_name = ?", arguments: [species.scientificName])
        }
    }

    // MARK: Shared queries

    /// The species a name from a request means: the one stored under that exact name, else under another
    /// spelling of it (`Species.storedSpellings`), in that order.
    static func fetchSpecies(_ db: Database, _ name: String) throws -> Species {
        // A cached statement: this lookup is on the hot path of most species and note routes.
        guard
            let species = try db.fetchOne(
                cachedSQL: speciesByStoredSpelling, arguments: StatementArguments(Species.storedSpellingsPadded(of: name)), Species.init(row:))
        else { throw OakError.notFound("Species", Species.normalizedName(name)) }
        return species
    }

    /// Writes an existing species' row (found by its name, which never changes).
    static func saveSpecies(_ db: Database, _ species: Species) throws {
        var values = species.columnValues
        values["scientific_name"] = nil
        try db.update("oak_entries", values, where: "scientific_name = ?", [species.scientificName])
    }

    /// The name a species is stored under (see `fetchSpecies`); the normalized name when there is none.
    static func storedName(_ db: Database, _ name: String) throws -> String {
        try existingName(db, name) ?? Species.normalizedName(name)
    }

    /// The name a species is stored under (see `fetchSpecies`), or nil when there is none.
    static func existingName(_ db: Database, _ name: String) throws -> String? {
        try String.fetchOne(db, cachedSQL: nameByStoredSpelling, arguments: StatementArguments(Species.storedSpellingsPadded(of: name)))
    }

    /// SQL of `columns` of the species stored under the first of ?1…?N (`Species.storedSpellingsPadded`) that
    /// one is stored under. Arms of a `UNION ALL … LIMIT 1`, which SQLite runs in order and stops at the first
    /// row: a name stored as asked costs one index lookup. Not `IN (…) ORDER BY … LIMIT 1`: SQLite runs that
    /// through two temporary b-trees (the list and the sort), opened and closed on each call, which would make
    /// this lookup a large part of a pushed note's time (see BENCHMARKS.md, "Server round 2", item 14).
    private static func byStoredSpelling(_ columns: String) -> String {
        (1...Species.maxStoredSpellings).map { "SELECT \(columns) FROM oak_entries WHERE scientific_name = ?\($0)" }
            .joined(separator: " UNION ALL ") + " LIMIT 1"
    }

    private static let speciesByStoredSpelling = byStoredSpelling("*")
    private static let speciesRecordByStoredSpelling = byStoredSpelling(SpeciesRecordColumn.list)
    private static let nameByStoredSpelling = byStoredSpelling("scientific_name")

    static func speciesExists(_ db: Database, _ name: String) throws -> Bool {
        try Bool.fetchOne(db, cachedSQL: "SELECT EXISTS(SELECT 1 FROM oak_entries WHERE scientific_name = ?)", arguments: [name]) ?? false
    }

    /// A species' source data with source names, preferred first, then by source id.
    static func attributedSources(_ db: Database, of name: String?) throws -> [AttributedSpeciesSource] {
        let filter = name == nil ? "" : "WHERE ss.scientific_name = ?"
        let arguments: StatementArguments = try name.map { [try storedName(db, $0)] } ?? []
        return try db.fetchAll(
            cachedSQL: """
                SELECT ss.*, s.name AS joined_source_name, s.url AS joined_source_url
                FROM species_sources ss JOIN sources s ON s.id = ss.source_id \(filter)
                ORDER BY ss.scientific_name, \(AttributedSourceColumn.order)
                """,
            arguments: arguments
        ) { row in
            AttributedSpeciesSource(
                record: SpeciesSource(row: row), sourceName: row["joined_source_name"], sourceURL: row["joined_source_url"])
        }
    }
}
