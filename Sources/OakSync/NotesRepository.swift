import Foundation
import GRDB
import OakModels
import OakSQLite

/// The notes API for app view models. Every write goes to the local database and marks the note
/// pending in one transaction, so the UI updates at once; the `SyncEngine` pushes it later.
public final class NotesRepository: Sendable {
    public let store: LocalStore
    private let clock: @Sendable () -> Date
    private let makeID: @Sendable () -> UUID

    /// `clock` stamps local writes (the sync rule compares these stamps, as hybrid logical times); `makeID`
    /// names new notes (random; a simulation replays a seed with its own).
    public init(store: LocalStore, clock: @escaping @Sendable () -> Date = { Date() }, makeID: @escaping @Sendable () -> UUID = { UUID() }) {
        self.store = store
        self.clock = clock
        self.makeID = makeID
    }

    /// The visible notes of one source (personal observations unless told), optionally of one species, by species name.
    public func notes(species: String? = nil, sourceId: Int = Source.personalObservationID) async throws -> [LocalNote] {
        try store.read { db in try Self.visible(db, species: species, sourceId: sourceId) }
    }

    /// The same list as `notes`, sent again whenever it changes (local writes and sync alike); a nil `sourceId`
    /// lists every source's notes. With `includingDeleted`, notes deleted here whose delete waits to be pushed are
    /// in it too.
    public func observe(species: String? = nil, sourceId: Int? = Source.personalObservationID, includingDeleted: Bool = false)
        -> AsyncStream<[LocalNote]>
    {
        let observation = ValueObservation.tracking { db in
            try Self.visible(db, species: species, sourceId: sourceId, includingDeleted: includingDeleted)
        }
        .removeDuplicates()
        return LocalStore.stream(of: observation, in: store.writer, label: "oak.notes.observe")
    }

    /// A note by id; nil if it does not exist or is deleted.
    public func note(id: UUID) async throws -> LocalNote? {
        try store.read { db in
            try LocalNote.fetchOne(db, id: id).flatMap { $0.syncStatus == .pendingDelete ? nil : $0 }
        }
    }

    /// How many notes wait to be pushed (rejected ones included).
    public func pendingCount() async throws -> Int {
        try store.read { db in
            try Int.fetchOne(db, cachedSQL: "SELECT COUNT(*) FROM notes WHERE sync_status != '\(NoteSyncStatus.synced.rawValue)'") ?? 0
        }
    }

    /// Creates a note for a species; throws CONFLICT if the species already has a note from that source.
    /// A note of the species and source that was deleted is brought back under its id: a delete of that id
    /// made later on another device still applies to it (under a new id it would survive that delete).
    @discardableResult
    public func create(scientificName: String, sourceId: Int = Source.personalObservationID, fields: NoteFields) async throws -> LocalNote {
        let (clock, makeID) = (clock, makeID)
        let note = try await store.writer.write { db in
            let now = try Self.writeTime(db, clock())
            let name = try LocalStore.storedSpeciesName(db, scientificName)
            let taxonomy = try (LocalStore.record(db, .species(name)) as Species?).map {
                NoteTaxonomy(subgenus: $0.subgenus, section: $0.section, subsection: $0.subsection, complex: $0.complex)
            }
            let existing = try LocalNote.fetchOne(db, species: name, sourceId: sourceId)
            var note: LocalNote
            if var existing {
                // A note deleted here but not yet pushed is brought back under its id.
                guard existing.syncStatus == .pendingDelete else {
                    throw OakError(
                        .conflict, "'\(name)' already has a note from source \(sourceId)", details: ["id": .string(existing.id.wireString)])
                }
                existing.createdAt = now
                note = existing
            } else if let deleted = try LocalStore.deletedNote(db, name: name, sourceId: sourceId) {
                // Made on the delete the device saw: based on its tombstone's version (a fast-forward over it).
                note = LocalNote(server: Note(id: deleted.id, scientificName: name, sourceId: sourceId, createdAt: now, updatedAt: now))
                note.serverVersion = deleted.version
            } else {
                note = LocalNote(server: Note(id: makeID(), scientificName: name, sourceId: sourceId, createdAt: now, updatedAt: now))
            }
            note.taxonomy = taxonomy ?? note.taxonomy
            // A note made anew: every field is written now.
            note.take(TimedFields(fields: fields, writtenAt: now))
            try Self.markPending(db, &note, .pendingUpload)
            try LocalStore.forgetDeletedNote(db, name: name, sourceId: sourceId)
            return note
        }
        store.localWriteHappened()
        return note
    }

    /// Replaces a note's fields: those that change are written now, the others keep their times, so edits of
    /// different fields on different devices all stay (`SyncRules.edit`).
    @discardableResult
    public func update(id: UUID, fields: NoteFields) async throws -> LocalNote {
        try await change(id, to: .pendingUpload) { note, time in note.take(SyncRules.edit(note.timedFields, to: fields, at: time)) }
    }

    /// Writes one field of a note now (nil clears it); the other fields stay as stored. An editor that writes only
    /// what the user typed cannot put back the old text of a field a sync changed since the editor read it.
    @discardableResult
    public func update(id: UUID, field: NoteFields.Field, to value: String?) async throws -> LocalNote {
        try await change(id, to: .pendingUpload) { note, time in
            var fields = note.fields
            fields[field] = value
            note.take(SyncRules.edit(note.timedFields, to: fields, at: time))
        }
    }

    /// Deletes a note: it disappears from lists at once and is deleted on the server by the next push.
    /// Returns the note as it is kept until then.
    @discardableResult
    public func delete(id: UUID) async throws -> LocalNote {
        try await change(id, to: .pendingDelete) { note, time in note.take(note.timedFields.written(at: time)) }
    }

    /// Changes an existing note at the time of the write and marks it pending, in one transaction.
    private func change(
        _ id: UUID, to status: NoteSyncStatus, _ edit: @escaping @Sendable (inout LocalNote, Date) -> Void
    ) async throws -> LocalNote {
        let clock = clock
        let note = try await store.writer.write { db in
            var note = try Self.existing(db, id)
            edit(&note, try Self.writeTime(db, clock()))
            try Self.markPending(db, &note, status)
            return note
        }
        store.localWriteHappened()
        return note
    }

    /// The time of a local write: the device's clock, but never earlier than the latest time the device has seen
    /// (any note it holds, any delete it saw), whatever its clock says: a hybrid logical time
    /// (`SyncRules.hybridTime`).
    private static func writeTime(_ db: Database, _ now: Date) throws -> Date {
        let latestNote = try Row.fetchOne(db, cachedSQL: "SELECT MAX(updated_at) FROM notes").flatMap { row in row[0] as Date? }
        let latestSeen = [latestNote, try LocalStore.latestDelete(db)].compactMap { $0 }.max()
        return latestSeen.map { SyncRules.hybridTime(now, after: $0) } ?? WireTime.milliseconds(now)
    }

    /// The notes of a source (of one species when named), by species name; a statement per shape of the query,
    /// kept by the connection (the lists are read on every change they observe).
    private static func visible(_ db: Database, species: String?, sourceId: Int?, includingDeleted: Bool = false) throws -> [LocalNote] {
        var conditions = ["1"]
        var arguments: StatementArguments = []
        if let sourceId {
            conditions.append("source_id = ?")
            arguments += [sourceId]
        }
        if !includingDeleted { conditions.append("sync_status != '\(NoteSyncStatus.pendingDelete.rawValue)'") }
        if let species {
            conditions.append("scientific_name = ?")
            arguments += [try LocalStore.storedSpeciesName(db, species)]
        }
        let sql = "SELECT * FROM notes WHERE \(conditions.joined(separator: " AND ")) ORDER BY scientific_name, source_id"
        return try LocalNote.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
    }

    private static func existing(_ db: Database, _ id: UUID) throws -> LocalNote {
        guard let note = try LocalNote.fetchOne(db, id: id), note.syncStatus != .pendingDelete else {
            throw OakError.notFound("note", id.wireString)
        }
        return note
    }

    /// Marks a local write: next local version, pending, and any rejection cleared (the user edited it).
    private static func markPending(_ db: Database, _ note: inout LocalNote, _ status: NoteSyncStatus) throws {
        note.localVersion += 1
        note.syncStatus = status
        note.lastError = nil
        try note.save(db)
    }
}
