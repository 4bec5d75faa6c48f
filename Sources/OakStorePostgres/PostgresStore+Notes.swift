import Foundation
import OakModels
import OakStore

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
        let (name, newFields) = try input.newNote()
        let now = self.now
        return try await write { session in
            let id = input.id ?? UUID()
            if try await Self.fetchNote(session, id) != nil {
                throw OakError(
                    .conflict, "A note with id \(id.wireString) already exists", details: ["id": .string(id.wireString)])
            }
            var record = try await Self.newNoteRecord(session, id: id, name: name, sourceId: input.sourceId, fields: newFields, at: now)
            try await Self.insertChecked(session, &record)
            return try await Self.requireNote(session, id)
        }
    }

    public func updateNote(id: UUID, with input: NoteInput, expectedVersion: Int64?) async throws -> Note {
        let now = self.now
        return try await write { session in
            // A body the server would refuse is a 400 whatever version it was meant for, so it goes first.
            let current = try await Self.requireNote(session, id)
            var fields = current.fields
            input.fields.apply(to: &fields)
            var record = try await Self.noteRecord(session, id: id, fields: fields)
            try current.check(expectedVersion: expectedVersion)
            if let name = input.scientificName, try await Self.storedName(session, name) != current.scientificName {
                throw OakError.conflicting("scientificName", "a note's species cannot change; create a new note instead")
            }
            if let sourceId = input.sourceId, sourceId != current.sourceId {
                throw OakError.conflicting("sourceId", "a note's source cannot change")
            }
            // An update that changes nothing is not a new version.
            guard fields != current.fields else { return current }
            // Made on the current version: the fields it changes are written after it (the sync rule's time).
            record.stamp(SyncRules.edit(current.timedFields, to: fields, at: SyncRules.hybridTime(now, after: current.updatedAt)))
            try await Self.saveSpeciesSource(session, record)
            return try await Self.requireNote(session, id)
        }
    }

    public func deleteNote(id: UUID, expectedVersion: Int64?) async throws {
        let now = self.now
        try await write { session in
            let note = try await Self.requireNote(session, id)
            try note.check(expectedVersion: expectedVersion)
            try await Self.deleteSpeciesSource(
                session, try await Self.fetchSpeciesSource(session, note.scientificName, note.sourceId),
                at: SyncRules.hybridTime(now, after: note.updatedAt))
        }
    }

    // MARK: Shared with sync

    /// A note's select (`StoreSQL.noteSelect`): its upsert found by its id.
    static let noteSelect = StoreSQL.noteSelect(.byKey)

    static func fetchNote(_ session: PostgresSession, _ id: UUID) async throws -> Note? {
        try await session.row("\(Self.noteSelect) WHERE ss.uuid = $1", [.text(id.wireString)]).map(Note.init(row:))
    }

    static func requireNote(_ session: PostgresSession, _ id: UUID) async throws -> Note {
        guard let note = try await fetchNote(session, id) else { throw OakError.notFound("Note", id.wireString) }
        return note
    }

    /// A new row for a note, after checking that its species and source exist (404 naming the field) and that
    /// the species has no note from the source (409 naming the note), in one query.
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
        return try newNoteRecord(
            id: id, name: name, storedName: row?.text("species"), sourceId: sourceId, sourceExists: row?.bool("source_exists") ?? false,
            existing: row?.text("existing"), fields: fields, at: time)
    }

    /// A new row for a note, given what was read about it: the name its species is stored under (nil when no
    /// species has the name: 404 naming `scientificName`), whether its source exists (else 404 naming
    /// `sourceId`), and the note the species already has from the source (409 naming it).
    static func newNoteRecord(
        id: UUID, name: String, storedName: String?, sourceId: Int, sourceExists: Bool, existing: String?, fields: NoteFields, at time: Date
    ) throws -> SpeciesSource {
        if let storedName {
            guard sourceExists else { throw OakError.unknownReference("sourceId", "no source with id \(sourceId) exists") }
            if let existing {
                throw OakError(
                    .conflict, "Species '\(storedName)' already has a note from source \(sourceId)", details: ["id": .string(existing)])
            }
        }
        return try SpeciesSource.newNote(id: id, name: name, storedName: storedName, sourceId: sourceId, fields: fields, at: time)
    }

    /// A note's row with `fields` applied and validated (a 400 naming the field), not yet written.
    static func noteRecord(_ session: PostgresSession, id: UUID, fields: NoteFields) async throws -> SpeciesSource {
        guard let row = try await session.row("SELECT * FROM species_sources WHERE uuid = $1", [.text(id.wireString)]) else {
            throw OakError.notFound("Note", id.wireString)
        }
        var record = SpeciesSource(row: row)
        fields.apply(to: &record)
        try NoteFields.validate(record)
        return record
    }

    /// Writes a note's fields and timestamp into its row.
    /// Writes a note's fields with their times.
    static func saveNote(_ session: PostgresSession, id: UUID, _ note: TimedFields) async throws {
        var record = try await noteRecord(session, id: id, fields: note.fields)
        record.stamp(note)
        try await saveSpeciesSource(session, record)
    }
}
