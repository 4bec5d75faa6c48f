import Foundation
import GRDB
import OakModels
import OakSQLite
import OakStore
import OakStoreKit

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
        let (name, fields) = try NewNote.parts(of: input)
        return try await write { db in
            let id = input.id ?? UUID()
            try NewNote.checkID(id, taken: try Self.fetchNote(db, id) != nil)
            var record = try NewNote.record(
                id: id, name: name, storedName: try Self.existingName(db, name), sourceId: input.sourceId, fields: fields, at: self.now)
            try Self.insertNewNote(db, &record)
            return try Self.requireNote(db, id)
        }
    }

    public func updateNote(id: UUID, with input: NoteInput, expectedVersion: Int64?) async throws -> Note {
        try await write { db in
            let current = try Self.requireNote(db, id)
            let update = try NoteUpdate.decide(
                input, expectedVersion: expectedVersion, current: current, row: try Self.noteRow(db, id),
                storedName: try input.scientificName.map { try Self.storedName(db, $0) }, now: self.now)
            guard case .save(let record) = update else { return current }
            try Self.saveSpeciesSource(db, record)
            return try Self.requireNote(db, id)
        }
    }

    public func deleteNote(id: UUID, expectedVersion: Int64?) async throws {
        try await write { db in
            let note = try Self.requireNote(db, id)
            let time = try NoteDelete.time(deleting: note, expectedVersion: expectedVersion, now: self.now)
            try Self.deleteSpeciesSource(db, try Self.fetchSpeciesSource(db, note.scientificName, note.sourceId), at: time)
        }
    }

    // MARK: Shared with sync

    /// A note's select (`StoreSQL.noteSelect`): its upsert found by its row (v13).
    static let noteSelect = StoreSQL.noteSelect(.byNoteRow)

    static func fetchNote(_ db: Database, _ id: UUID) throws -> Note? {
        try db.fetchOne(cachedSQL: "\(Self.noteSelect) WHERE ss.uuid = ?", arguments: [id.wireString], Note.init(row:))
    }

    /// The note, which must exist.
    static func requireNote(_ db: Database, _ id: UUID) throws -> Note {
        guard let note = try fetchNote(db, id) else { throw OakError.notFound("Note", id.wireString) }
        return note
    }

    /// Inserts a new note's row (`NewNote.record`). Its source's existence and the one note per species and
    /// source are left to the database's constraints (two queries fewer per pushed note); when one fails, what
    /// `NewNote.checkPlace` needs is read to say which.
    static func insertNewNote(_ db: Database, _ record: inout SpeciesSource) throws {
        do {
            try insertChecked(db, &record)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            try NewNote.checkPlace(
                of: record, sourceExists: try sourceExists(db, record.sourceId),
                existing: try String.fetchOne(
                    db, cachedSQL: "SELECT uuid FROM species_sources WHERE scientific_name = ? AND source_id = ?",
                    arguments: [record.scientificName, record.sourceId]))
            throw error
        }
    }

    /// A note's row, which must exist.
    static func noteRow(_ db: Database, _ id: UUID) throws -> SpeciesSource {
        guard
            let record = try db.fetchOne(
                cachedSQL: "SELECT * FROM species_sources WHERE uuid = ?", arguments: [id.wireString], SpeciesSource.init(row:))
        else { throw OakError.notFound("Note", id.wireString) }
        return record
    }

    /// Writes a note's fields with their times (a pushed update's merge).
    static func saveNote(_ db: Database, id: UUID, _ note: TimedFields) throws {
        try saveSpeciesSource(db, try NoteUpdate.row(noteRow(db, id), writing: note))
    }
}
