import Foundation
import OakModels
import OakStore
import OakStoreKit

extension PostgresStore: NoteRepository {
    public func notes(species: String?, sourceId: Int) async throws -> [Note] {
        try await read { session in
            var sql = "\(Self.noteSelect) WHERE ss.source_id = $1"
            var values: [StoredValue] = [StoredValue(sourceId)]
            if let species {
                sql += " AND ss.scientific_name = $2"
                values.append(.text(try await Self.storedName(session, species)))
            }
            return try await session.rows(sql + " ORDER BY ss.scientific_name, ss.id", values).map(Note.init(row:))
        }
    }

    public func note(id: UUID) async throws -> Note {
        try await read { session in try await Self.requireNote(session, id) }
    }

    public func createNote(_ input: NoteInput) async throws -> Note {
        let (name, fields) = try NewNote.parts(of: input)
        let now = self.now
        return try await write(headLock: .atFirstChange) { session in
            let id = input.id ?? UUID()
            try NewNote.checkID(id, taken: try await Self.fetchNote(session, id) != nil)
            var record = try await Self.newNoteRecord(session, id: id, name: name, sourceId: input.sourceId, fields: fields, at: now)
            try await Self.insertChecked(session, &record)
            return try await Self.requireNote(session, id)
        }
    }

    public func updateNote(id: UUID, with input: NoteInput, expectedVersion: Int64?) async throws -> Note {
        let now = self.now
        return try await write(headLock: .inOneStatement) { session in
            guard let read = try await session.rows(NoteWithRowVersionStatement.self, [.text(id.wireString)]).first else {
                throw OakError.notFound("Note", id.wireString)
            }
            let row = SpeciesSource(row: read)
            let current = Note(row: read, record: row)
            var storedName: String?
            if let name = input.scientificName { storedName = try await Self.storedName(session, name) }
            let update = try NoteUpdate.decide(
                input, expectedVersion: expectedVersion, current: current, row: row, storedName: storedName, now: now)
            guard case .save(let record) = update else { return current }
            return try await Self.saveNote(session, record, ifRowVersion: read.text("row_version") ?? "")
        }
    }

    public func deleteNote(id: UUID, expectedVersion: Int64?) async throws {
        let now = self.now
        try await write { session in
            let note = try await Self.requireNote(session, id)
            let time = try NoteDelete.time(deleting: note, expectedVersion: expectedVersion, now: now)
            try await Self.deleteSpeciesSource(session, try await Self.fetchSpeciesSource(session, note.scientificName, note.sourceId), at: time)
        }
    }

    // MARK: Shared with sync

    /// A note's select (`StoreSQL.noteSelect`): its upsert found by its id.
    static let noteSelect = StoreSQL.noteSelect(.byKey)

    /// `noteSelect` with the row's version (`xmin`, which every update of the row changes), for a write that
    /// must find the row as it was read (`saveNote(_:_:ifRowVersion:)`).
    static let noteSelectWithRowVersion = StoreSQL.noteSelect(.byKey, leading: "ss.xmin::text AS row_version")

    /// Writes a note's row in one statement (`HeadLock.inOneStatement`) if it is still at `rowVersion`, and
    /// returns the note as written; another write of the row since it was read makes the caller run again. The
    /// statement locks the change log's head before it updates the row, and the note's version is the one the
    /// log's trigger gives the update at the statement's end: the head it locked, plus one.
    static func saveNote(_ session: PostgresSession, _ record: SpeciesSource, ifRowVersion rowVersion: String) async throws -> Note {
        let arguments = [StoredValue(record.id), .text(rowVersion)] + writtenValues(of: record)
        guard let written = try await session.rows(NoteSaveStatement.self, arguments).first else { throw RowChanged() }
        return Note(row: written)
    }

    /// `saveNote`'s statement: `$1` the row's id, `$2` the row version it was read at, then the values of
    /// `writtenColumnNames` in their order.
    static let noteSaveSQL: String = {
        let assignments = writtenColumnNames.enumerated().map { "\"\($1)\" = $\($0 + 3)" }.joined(separator: ", ")
        return """
            WITH head AS (SELECT seq FROM change_log_head FOR UPDATE),
            saved AS (
                UPDATE species_sources SET \(assignments)
                WHERE (SELECT seq FROM head) IS NOT NULL AND id = $1 AND xmin = $2::text::xid RETURNING *)
            SELECT saved.*, e.subgenus, e.section, e.subsection, e.complex, (SELECT seq FROM head) + 1 AS version
            FROM saved JOIN oak_entries e ON e.scientific_name = saved.scientific_name
            """
    }()

    static func fetchNote(_ session: PostgresSession, _ id: UUID) async throws -> Note? {
        try await session.row("\(Self.noteSelect) WHERE ss.uuid = $1", [.text(id.wireString)]).map(Note.init(row:))
    }

    static func requireNote(_ session: PostgresSession, _ id: UUID) async throws -> Note {
        guard let note = try await fetchNote(session, id) else { throw OakError.notFound("Note", id.wireString) }
        return note
    }

    /// A new note's row (`NewNote`), after reading in one query what its rule needs: the name its species is
    /// stored under, whether its source exists and the note the species already has from the source.
    static func newNoteRecord(_ session: PostgresSession, id: UUID, name: String, sourceId: Int?, fields: NoteFields, at time: Date)
        async throws -> SpeciesSource
    {
        let sourceId = sourceId ?? Source.personalObservationID
        let source = "$\(Species.maxStoredSpellings + 1)"
        let row = try await session.row(
            """
            SELECT e.scientific_name AS species, EXISTS (SELECT 1 FROM sources WHERE id = \(source))::int AS source_exists,
                (SELECT uuid FROM species_sources ss WHERE ss.scientific_name = e.scientific_name AND ss.source_id = \(source)) AS existing
            FROM (\(byStoredSpelling("scientific_name"))) e
            """, storedSpellings(of: name) + [StoredValue(sourceId)])
        let record = try NewNote.record(id: id, name: name, storedName: row?.text("species"), sourceId: sourceId, fields: fields, at: time)
        try NewNote.checkPlace(of: record, sourceExists: row?.bool("source_exists") ?? false, existing: row?.text("existing"))
        return record
    }

    /// A note's row, which must exist.
    static func noteRow(_ session: PostgresSession, _ id: UUID) async throws -> SpeciesSource {
        guard let row = try await session.row("SELECT * FROM species_sources WHERE uuid = $1", [.text(id.wireString)]) else {
            throw OakError.notFound("Note", id.wireString)
        }
        return SpeciesSource(row: row)
    }

    /// Writes a note's fields with their times (a pushed update's merge).
    static func saveNote(_ session: PostgresSession, id: UUID, _ note: TimedFields) async throws {
        try await saveSpeciesSource(session, try NoteUpdate.row(try await noteRow(session, id), writing: note))
    }
}
