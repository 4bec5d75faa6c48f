import Foundation
import GRDB
import OakModels
import OakSQLite
import OakStore
import OakStoreKit

extension SQLiteStore: SpeciesSourceRepository {
    public func speciesSources(of name: String) async throws -> [SpeciesSource] {
        try read { db in
            let species = try Self.fetchSpecies(db, name)
            return try db.fetchAll(
                cachedSQL: "SELECT * FROM species_sources WHERE scientific_name = ? ORDER BY is_preferred DESC, source_id",
                arguments: [species.scientificName], SpeciesSource.init(row:))
        }
    }

    public func speciesSource(of name: String, sourceId: Int) async throws -> SpeciesSource {
        try read { db in try Self.fetchSpeciesSource(db, name, sourceId) }
    }

    public func createSpeciesSource(of name: String, with patch: SpeciesSourcePatch) async throws -> SpeciesSource {
        let sourceId = try SpeciesSourceWrite.sourceID(creating: patch)
        return try await write { db in
            let species = try Self.fetchSpecies(db, name).scientificName
            let existing = try Row.fetchOne(
                db, cachedSQL: "SELECT id, uuid FROM species_sources WHERE scientific_name = ? AND source_id = ?", arguments: [species, sourceId])
            var record = try SpeciesSourceWrite.create(
                species: species, sourceId: sourceId, applying: patch, sourceExists: try Self.sourceExists(db, sourceId),
                existing: existing.map { SpeciesSourceWrite.Existing(rowID: $0["id"], uuid: $0["uuid"]) }, at: self.now)
            try Self.insertChecked(db, &record)
            return record
        }
    }

    public func updateSpeciesSource(of name: String, sourceId: Int, with patch: SpeciesSourcePatch) async throws
        -> SpeciesSource
    {
        try await write { db in
            let record = try SpeciesSourceWrite.update(try Self.fetchSpeciesSource(db, name, sourceId), applying: patch, at: self.now)
            try Self.saveSpeciesSource(db, record)
            return record
        }
    }

    public func deleteSpeciesSource(of name: String, sourceId: Int) async throws {
        try await write { db in
            let record = try Self.fetchSpeciesSource(db, name, sourceId)
            try Self.deleteSpeciesSource(db, record, at: self.now)
        }
    }

    // MARK: Shared with notes

    static func fetchSpeciesSource(_ db: Database, _ name: String, _ sourceId: Int) throws -> SpeciesSource {
        let species = try fetchSpecies(db, name)
        guard
            let record = try db.fetchOne(
                cachedSQL: "SELECT * FROM species_sources WHERE scientific_name = ? AND source_id = ?",
                arguments: [species.scientificName, sourceId], SpeciesSource.init(row:))
        else { throw OakError.notFound("Data of source \(sourceId) for species", species.scientificName) }
        return record
    }

    /// Deletes a row, stamping its tombstone with the time of the delete.
    static func deleteSpeciesSource(_ db: Database, _ record: SpeciesSource, at time: Date) throws {
        try db.execute(cachedSQL: "DELETE FROM species_sources WHERE id = ?", arguments: [record.id])
        try stampTombstone(db, record.uuid, at: time)
    }

    /// Records a tombstone of a note the database does not hold, at `time`, under a new version (the log's next
    /// sequence number), replacing any earlier one (`PushPlan.recordTombstone`).
    static func recordTombstone(_ db: Database, _ id: UUID, at time: Date) throws {
        try db.execute(
            cachedSQL: "DELETE FROM change_log AS c WHERE c.entity = 'notes' AND c.entity_key = ? AND \(NoteLog.byNoteRow.keyedEntry)",
            arguments: [id.wireString])
        try db.execute(
            cachedSQL: "INSERT INTO change_log(entity, entity_key, op, changed_at, deleted_at) VALUES ('notes', ?, 'delete', \(Schema.now), ?)",
            arguments: [id.wireString, WireTime.formatPrecise(time)])
    }

    /// Records `time` as when a deleted note's delete happened.
    static func stampTombstone(_ db: Database, _ id: UUID, at time: Date) throws {
        try db.execute(
            cachedSQL: "UPDATE change_log AS c SET deleted_at = ? WHERE c.entity = 'notes' AND c.entity_key = ? AND \(NoteLog.byNoteRow.keyedEntry)",
            arguments: [WireTime.formatPrecise(time), id.wireString])
    }

    /// Inserts a row whose species, source and uniqueness were checked; sets its row id.
    static func insertChecked(_ db: Database, _ record: inout SpeciesSource) throws {
        try db.execute(cachedSQL: insertSpeciesSource, arguments: StatementArguments(record.columnList))
        record.id = Int(db.lastInsertedRowID)
    }

    private static let insertSpeciesSource = Database.insertSQL(into: "species_sources", SpeciesSource.columnNames)

    /// Writes every column of an existing row; the row keeps its id, uuid and creation time.
    static func saveSpeciesSource(_ db: Database, _ record: SpeciesSource) throws {
        var values = record.columnValues
        for column in ["uuid", "scientific_name", "source_id", "created_at"] { values[column] = nil }
        try db.update("species_sources", values, where: "id = ?", [record.id])
    }
}
