import Foundation
import NIOCore
import OakModels
import OakStore
import OakStoreKit
import PostgresNIO

extension PostgresStore: SpeciesRepository {
    public func listSpecies(filter: SpeciesFilter, limit: Int, offset: Int) async throws -> Page<Species> {
        var query = PostgresFilter()
        for (column, value) in [
            ("subgenus", filter.subgenus), ("section", filter.section), ("subsection", filter.subsection), ("complex", filter.complex),
        ] {
            query.add("lower(\(column)) = lower($)", value.map { .text($0) })
        }
        query.add("is_hybrid = $", filter.isHybrid.map { StoredValue($0) })
        query.add("scientific_name IN (SELECT scientific_name FROM species_sources WHERE source_id = $)", filter.sourceId.map { StoredValue($0) })
        let filter = query
        return try await read { session in
            try await filter.page(session, from: "oak_entries", orderBy: "scientific_name", limit: limit, offset: offset, Species.init(row:))
        }
    }

    public func species(named name: String) async throws -> Species {
        try await read { session in try await Self.fetchSpecies(session, name) }
    }

    public func encodedSpeciesFull(named name: String) async throws -> ByteBuffer {
        let rows = try await read { session in try await session.rows(SpeciesFullStatement.self, Self.storedSpellings(of: name)) }
        guard let first = rows.first else { throw OakError.notFound("Species", Species.normalizedName(name)) }
        let speciesColumns = PostgresColumns(first)
        var json = JSONOutput(capacity: 4096)
        try json.beginSpeciesFull(speciesColumns)
        for (index, row) in rows.enumerated() {
            let sourceColumns = PostgresColumns(row, from: SpeciesRecordColumn.allCases.count)
            if !sourceColumns.isNull(AttributedSourceColumn.id.rawValue) { try json.speciesFullSourceRow(sourceColumns, first: index == 0) }
        }
        try json.endSpeciesFull(speciesColumns)
        return json.takeByteBuffer()
    }

    /// A species' full record in one statement (one snapshot, one round trip): a row for each of its source rows
    /// in their order, the species' columns (`SpeciesRecordColumn`) and then the row's (`AttributedSourceColumn`);
    /// one row with no source columns when it has none. With one species row, the lateral join yields the source
    /// rows in the subquery's order.
    static let speciesFullQuery = """
        SELECT e.*, s.* FROM (\(byStoredSpelling(SpeciesRecordColumn.list))) e
        LEFT JOIN LATERAL (
            \(AttributedSourceColumn.selection) WHERE ss.scientific_name = e.scientific_name ORDER BY \(AttributedSourceColumn.order)
        ) s ON true
        """

    public func speciesFull(named name: String) async throws -> SpeciesFull {
        try await snapshot { session in
            SpeciesFull(species: try await Self.fetchSpecies(session, name), sources: try await Self.attributedSources(session, of: name))
        }
    }

    public func createSpecies(_ patch: SpeciesPatch) async throws -> Species {
        let new = try Species(creating: patch)
        return try await write { session in
            let species = try SpeciesWrite.create(new, alreadyExists: try await Self.speciesExists(session, new.scientificName))
            try await session.insert(into: "oak_entries", species.columnValues)
            return species
        }
    }

    public func updateSpecies(named name: String, with patch: SpeciesPatch) async throws -> Species {
        try await write { session in
            var species = try await Self.fetchSpecies(session, name)
            try species.apply(patch)
            var values = species.columnValues
            values["scientific_name"] = nil
            try await session.update("oak_entries", values, where: "scientific_name = $1", [.text(species.scientificName)])
            return species
        }
    }

    public func deleteSpecies(named name: String) async throws {
        try await write { session in
            let species = try await Self.fetchSpecies(session, name)
            try StillReferenced.checkSpeciesDelete(
                species,
                hybrids: try await session.texts(
                    "SELECT scientific_name FROM oak_entries WHERE parent1 = $1 OR parent2 = $1 ORDER BY scientific_name", [.text(species.scientificName)]))
            // Source rows first, so their tombstones come before the species' in the change log.
            try await session.execute("DELETE FROM species_sources WHERE scientific_name = $1", [.text(species.scientificName)])
            try await session.execute("DELETE FROM oak_entries WHERE scientific_name = $1", [.text(species.scientificName)])
        }
    }

    // MARK: Shared queries

    /// The species a name from a request means: the one stored under that exact name, else under another
    /// spelling of it (`Species.storedSpellings`), in that order (as the SQLite store reads it).
    static func fetchSpecies(_ session: PostgresSession, _ name: String) async throws -> Species {
        guard let row = try await session.row(byStoredSpelling("*"), storedSpellings(of: name)) else {
            throw OakError.notFound("Species", Species.normalizedName(name))
        }
        return Species(row: row)
    }

    /// The name a species is stored under (see `fetchSpecies`), or nil when there is none.
    static func existingName(_ session: PostgresSession, _ name: String) async throws -> String? {
        try await session.text(byStoredSpelling("scientific_name"), storedSpellings(of: name))
    }

    /// SQL of `columns` of the species stored under the first of the parameters $1…$N that one is stored
    /// under (`storedSpellings(of:)` binds them). The spellings are looked up one by one in their order, each by
    /// the key's index: a kept statement's generic plan of `scientific_name IN ($1, …)` scans the whole table
    /// instead (see BENCHMARKS.md, "PostgreSQL beside SQLite", 2026-12-02).
    static func byStoredSpelling(_ columns: String) -> String {
        let list = (1...Species.maxStoredSpellings).map { "$\($0)" }.joined(separator: ", ")
        return """
            SELECT \(columns) FROM (
                SELECT oak_entries.* FROM unnest(ARRAY[\(list)]::text[]) WITH ORDINALITY AS spelling(name, position)
                JOIN oak_entries ON oak_entries.scientific_name = spelling.name ORDER BY spelling.position LIMIT 1
            ) oak_entries
            """
    }

    /// The parameters of `byStoredSpelling`: a name's stored spellings (`Species.storedSpellingsPadded`).
    static func storedSpellings(of name: String) -> [StoredValue] {
        Species.storedSpellingsPadded(of: name).map(StoredValue.text)
    }

    /// The name a species is stored under; the normalized name when there is none.
    static func storedName(_ session: PostgresSession, _ name: String) async throws -> String {
        try await existingName(session, name) ?? Species.normalizedName(name)
    }

    static func speciesExists(_ session: PostgresSession, _ name: String) async throws -> Bool {
        try await session.row("SELECT 1 FROM oak_entries WHERE scientific_name = $1", [.text(name)]) != nil
    }

    /// A species' source data with source names, preferred first, then by source id.
    static func attributedSources(_ session: PostgresSession, of name: String) async throws -> [AttributedSpeciesSource] {
        try await session.rows(
            """
            SELECT ss.*, s.name AS joined_source_name, s.url AS joined_source_url
            FROM species_sources ss JOIN sources s ON s.id = ss.source_id WHERE ss.scientific_name = $1
            ORDER BY \(AttributedSourceColumn.order)
            """,
            [.text(try await storedName(session, name))]
        ).map { row in
            AttributedSpeciesSource(record: SpeciesSource(row: row), sourceName: row.text("joined_source_name") ?? "", sourceURL: row.text("joined_source_url"))
        }
    }
}
