import Foundation
import OakModels
import OakStore
import OakStoreKit

extension PostgresStore: SpeciesSourceRepository {
    public func speciesSources(of name: String) async throws -> [SpeciesSource] {
        try await read { session in
            let species = try await Self.fetchSpecies(session, name)
            return try await session.rows(
                "SELECT * FROM species_sources WHERE scientific_name = $1 ORDER BY is_preferred DESC, source_id", [.text(species.scientificName)]
            ).map(SpeciesSource.init(row:))
        }
    }

    public func speciesSource(of name: String, sourceId: Int) async throws -> SpeciesSource {
        try await read { session in try await Self.fetchSpeciesSource(session, name, sourceId) }
    }

    public func createSpeciesSource(of name: String, with patch: SpeciesSourcePatch) async throws -> SpeciesSource {
        let sourceId = try SpeciesSourceWrite.sourceID(creating: patch)
        let now = self.now
        return try await write { session in
            let species = try await Self.fetchSpecies(session, name).scientificName
            let existing = try await session.row(
                "SELECT id, uuid FROM species_sources WHERE scientific_name = $1 AND source_id = $2", [.text(species), StoredValue(sourceId)])
            var record = try SpeciesSourceWrite.create(
                species: species, sourceId: sourceId, applying: patch, sourceExists: try await Self.sourceExists(session, sourceId),
                existing: existing.map { SpeciesSourceWrite.Existing(rowID: $0.integer("id") ?? 0, uuid: $0.text("uuid")) }, at: now)
            try await Self.insertChecked(session, &record)
            return record
        }
    }

    public func updateSpeciesSource(of name: String, sourceId: Int, with patch: SpeciesSourcePatch) async throws -> SpeciesSource {
        let now = self.now
        return try await write { session in
            let record = try SpeciesSourceWrite.update(try await Self.fetchSpeciesSource(session, name, sourceId), applying: patch, at: now)
            try await Self.saveSpeciesSource(session, record)
            return record
        }
    }

    public func deleteSpeciesSource(of name: String, sourceId: Int) async throws {
        let now = self.now
        try await write { session in
            try await Self.deleteSpeciesSource(session, try await Self.fetchSpeciesSource(session, name, sourceId), at: now)
        }
    }

    // MARK: Shared with notes

    static func fetchSpeciesSource(_ session: PostgresSession, _ name: String, _ sourceId: Int) async throws -> SpeciesSource {
        let species = try await fetchSpecies(session, name)
        guard
            let row = try await session.row(
                "SELECT * FROM species_sources WHERE scientific_name = $1 AND source_id = $2", [.text(species.scientificName), StoredValue(sourceId)])
        else { throw OakError.notFound("Data of source \(sourceId) for species", species.scientificName) }
        return SpeciesSource(row: row)
    }

    /// Deletes a row, stamping its tombstone with the time of the delete.
    static func deleteSpeciesSource(_ session: PostgresSession, _ record: SpeciesSource, at time: Date) async throws {
        try await session.execute("DELETE FROM species_sources WHERE id = $1", [StoredValue(record.id)])
        try await stampTombstone(session, record.uuid, at: time)
    }

    /// Records a tombstone of a note the database does not hold, at `time`, under a new version (the log's next
    /// sequence number), replacing any earlier one (`PushPlan.recordTombstone`).
    static func recordTombstone(_ session: PostgresSession, _ id: UUID, at time: Date) async throws {
        try await session.execute("SELECT oak_log_change('notes', $1, 'delete')", [.text(id.wireString)])
        try await stampTombstone(session, id, at: time)
    }

    /// Records `time` as when a deleted note's delete happened.
    static func stampTombstone(_ session: PostgresSession, _ id: UUID, at time: Date) async throws {
        try await session.execute(
            "UPDATE change_log SET deleted_at = $1 WHERE entity = 'notes' AND entity_key = $2", [StoredValue(time), .text(id.wireString)])
    }

    /// Inserts a row whose species, source and uniqueness were checked; sets its row id.
    static func insertChecked(_ session: PostgresSession, _ record: inout SpeciesSource) async throws {
        record.id = Int(try await session.insert(into: "species_sources", record.columnValues, returning: "id") ?? 0)
    }

    /// Writes every column of an existing row; the row keeps its id, uuid and creation time.
    static func saveSpeciesSource(_ session: PostgresSession, _ record: SpeciesSource) async throws {
        try await session.update("species_sources", writtenColumns(of: record), where: "id = $1", [StoredValue(record.id)])
    }

    /// The columns a save writes: all but the row's id, uuid, place (species and source) and creation time.
    static let writtenColumnNames = SpeciesSource.columnNames.filter { !fixedColumnNames.contains($0) }

    /// The columns a row keeps from its insert on.
    private static let fixedColumnNames: Set = ["uuid", "scientific_name", "source_id", "created_at"]

    /// The values of `writtenColumnNames`, in their order.
    static func writtenValues(of record: SpeciesSource) -> [StoredValue] {
        zip(SpeciesSource.columnNames, record.columnList).filter { !fixedColumnNames.contains($0.0) }.map(\.1)
    }

    /// The values of `writtenColumnNames`, by column.
    static func writtenColumns(of record: SpeciesSource) -> [String: StoredValue] {
        Dictionary(uniqueKeysWithValues: zip(writtenColumnNames, writtenValues(of: record)))
    }
}
