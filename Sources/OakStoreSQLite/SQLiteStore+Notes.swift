import Foundation
import GRDB
import OakModels
import OakSQLite
import OakStore

extension SQLiteStore: NoteRepository {
    public func notes(species: String?, sourceId: Int) async throws -> [Note] {
        // Every note of a source can be thousands of rows.
        try await longRead { db in
            var sql = "\(Self.noteSelect) WHERE ss.source_id = ?"
            var arguments: StatementArguments = [sourceId]
            if let species {
                sql += " AND ss.scientific_name = ?"
                arguments += [try Self.storedName(db, species)]
            }
            return try db.fetchAll(cachedSQL: sql + " ORDER BY ss.scientific_name, ss.id", arguments: arguments, Note.init(row:))
        }
    }

    public func note(id: UUID) async throws -> Note {
        try read { db in
            guard let note = try Self.fetchNote(db, id) else { throw OakError.notFound("Note", id.wireString) }
            return note
        }
    }

    public func createNote(_ input: NoteInput) async throws -> Note {
        let (name, fields) = try input.newNote()
        return try await write { db in
            let now = self.now
            let id = input.id ?? UUID()
            if try Self.fetchNote(db, id) != nil {
                throw OakError(.conflict, "A note with id \(id.wireString) already exists", details: ["id": .string(id.wireString)])
            }
            var record = try Self.newNoteRecord(db, id: id, name: name, sourceId: input.sourceId, fields: fields, at: now)
            try Self.insertNewNote(db, &record)
            return try Self.requireNote(db, id)
        }
    }

    public func updateNote(id: UUID, with input: NoteInput, expectedVersion: Int64?) async throws -> Note {
        try await write { db in
            // A body the server would refuse is a 400 whatever version it was meant for, so it goes first.
            let current = try Self.requireNote(db, id)
            var fields = current.fields
            input.fields.apply(to: &fields)
            var record = try Self.noteRecord(db, id: id, fields: fields)
            try current.check(expectedVersion: expectedVersion)
            if let name = input.scientificName, try Self.storedName(db, name) != current.scientificName {
                throw OakError.conflicting("scientificName", "a note's species cannot change; create a new note instead")
            }
            if let sourceId = input.sourceId, sourceId != current.sourceId {
                throw OakError.conflicting("sourceId", "a note's source cannot change")
            }
            // An update that changes nothing is not a new version.
            guard fields != current.fields else { return current }
            // Made on the current version: the fields it changes are written after it (the sync rule's time).
            record.stamp(SyncRules.edit(current.timedFields, to: fields, at: SyncRules.hybridTime(self.now, after: current.updatedAt)))
            try Self.saveSpeciesSource(db, record)
            return try Self.requireNote(db, id)
        }
    }

    public func deleteNote(id: UUID, expectedVersion: Int64?) async throws {
        try await write { db in
            let note = try Self.requireNote(db, id, expectedVersion: expectedVersion)
            let record = try Self.fetchSpeciesSource(db, note.scientificName, note.sourceId)
            try Self.deleteSpeciesSource(db, record, at: SyncRules.hybridTime(self.now, after: note.updatedAt))
        }
    }

    // MARK: Shared with sync

    /// A note's select (`StoreSQL.noteSelect`): its upsert found by its row (v13).
    static let noteSelect = StoreSQL.noteSelect(.byNoteRow)

    static func fetchNote(_ db: Database, _ id: UUID) throws -> Note? {
        try db.fetchOne(cachedSQL: "\(Self.noteSelect) WHERE ss.uuid = ?", arguments: [id.wireString], Note.init(row:))
    }

    /// The note, which must exist and, when a version is expected, be at that version.
    static func requireNote(_ db: Database, _ id: UUID, expectedVersion: Int64? = nil) throws -> Note {
        guard let note = try fetchNote(db, id) else { throw OakError.notFound("Note", id.wireString) }
        try note.check(expectedVersion: expectedVersion)
        return note
    }

    /// A new row for a note, after finding its species under any spelling (404 naming the field when there
    /// is none). Its source and the one note per species and source are checked by `insertNewNote`.
    static func newNoteRecord(_ db: Database, id: UUID, name: String, sourceId: Int?, fields: NoteFields, at time: Date) throws
        -> SpeciesSource
    {
        try SpeciesSource.newNote(id: id, name: name, storedName: existingName(db, name), sourceId: sourceId, fields: fields, at: time)
    }

    /// Inserts a new note's row. The source's existence and the one note per species and source are left to
    /// the database's constraints (two queries fewer per pushed note); when one fails, the error says which:
    /// an unknown source (404 naming `sourceId`) or a conflict naming the note that exists.
    static func insertNewNote(_ db: Database, _ record: inout SpeciesSource) throws {
        do {
            try insertChecked(db, &record)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            guard try sourceExists(db, record.sourceId) else {
                throw OakError.unknownReference("sourceId", "no source with id \(record.sourceId) exists")
            }
            if let existing = try String.fetchOne(
                db, cachedSQL: "SELECT uuid FROM species_sources WHERE scientific_name = ? AND source_id = ?",
                arguments: [record.scientificName, record.sourceId])
            {
                throw OakError(
                    .conflict, "Species '\(record.scientificName)' already has a note from source \(record.sourceId)",
                    details: ["id": .string(existing)])
            }
            throw error
        }
    }

    /// A note's row with `fields` applied and validated (a 400 naming the field), not yet written.
    static func noteRecord(_ db: Database, id: UUID, fields: NoteFields) throws -> SpeciesSource {
        guard
            var record = try db.fetchOne(
                cachedSQL: "SELECT * FROM species_sources WHERE uuid = ?", arguments: [id.wireString], SpeciesSource.init(row:))
        else { throw OakError.notFound("Note", id.wireString) }
        fields.apply(to: &record)
        try NoteFields.validate(record)
        return record
    }

    /// Writes a note's fields and timestamp into its row.
    /// Writes a note's fields with their times.
    static func saveNote(_ db: Database, id: UUID, _ note: TimedFields) throws {
        var record = try noteRecord(db, id: id, fields: note.fields)
        record.stamp(note)
        try saveSpeciesSource(db, record)
    }
}
