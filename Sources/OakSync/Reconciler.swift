import Foundation
import GRDB
import OakModels
import OakSQLite

/// Applies what the server says (push results, pulled changes) to the local database, one transaction
/// per batch, following last write wins and never losing a pending local change the server has not judged.
struct Reconciler: Sendable {
    let store: LocalStore

    /// Ids of the notes with a change to push: pending, not rejected (a rejected one waits for an edit), and
    /// not on a source created here that the server has not numbered yet.
    func pushableIDs() async throws -> [UUID] {
        try store.read { db in
            try UUID.fetchAll(
                db.cachedStatement(
                    sql:
                        "SELECT id FROM notes INDEXED BY notes_pushable WHERE sync_status != 'synced' AND last_error IS NULL AND source_id > 0 ORDER BY updated_at"
                ))
        }
    }

    /// The current state of those notes that are still pushable.
    func pushable(_ ids: [UUID]) async throws -> [LocalNote] {
        try store.read { db in
            try LocalNote.fetchAll(db, ids: ids).filter { $0.syncStatus != .synced && $0.lastError == nil && $0.sourceId > 0 }
        }
    }

    /// Applies the results of a push of `sent` (the notes as they were when pushed).
    func applyPushResults(_ results: [PushResult], sent: [LocalNote]) async throws {
        let sentByID = Dictionary(sent.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        try await store.writer.write { db in
            for result in results {
                try LocalStore.observeDelete(db, at: result.deletedAt)
                guard let snapshot = sentByID[result.id], var note = try LocalNote.fetchOne(db, id: result.id) else { continue }
                let editedInFlight = note.localVersion != snapshot.localVersion
                switch result.status {
                case .applied:
                    if editedInFlight {
                        // The server now holds the pushed change; the newer edit builds on it, field by field. A
                        // delete made in flight keeps its base: the stored note may hold others' edits the user never
                        // saw, and a delete based on it would fast-forward over them.
                        if note.syncStatus != .pendingDelete {
                            if let stored = result.note { note.take(SyncRules.merge(stored.timedFields, note.timedFields)) }
                            note.serverVersion = result.version ?? note.serverVersion
                        }
                        try note.update(db)
                    } else if let stored = result.note {
                        note.adopt(stored)
                        try note.update(db)
                    } else {
                        try LocalStore.removeDeletedNote(db, note, version: result.version, deletedAt: result.deletedAt ?? snapshot.updatedAt)
                    }
                case .stale:
                    guard let winner = result.note else {
                        // The server deleted the note and that delete won.
                        if !editedInFlight { try LocalStore.removeDeletedNote(db, note, version: result.version, deletedAt: result.deletedAt) }
                        continue
                    }
                    if winner.id != note.id {
                        try Self.replace(db, note, with: winner)
                    } else if editedInFlight {
                        try Self.merge(db, winner, into: note)
                    } else {
                        note.adopt(winner)
                        try note.update(db)
                    }
                case .rejected:
                    guard !editedInFlight else { continue }
                    note.lastError = result.error ?? OakError(.validationError, "The server rejected this change")
                    try note.update(db)
                }
            }
        }
    }

    /// Applies one page of an incremental pull and saves its cursor, in one transaction.
    func applyPull(_ page: PullResponse) async throws {
        try await store.writer.write { db in
            try Self.apply(db, page.changes)
            try LocalStore.saveCursor(db, page.cursor)
        }
    }

    /// Applies one page of a full snapshot (every page of a pull without cursor), in one transaction, and
    /// returns the keys it held. `finishSnapshot` then settles what no page held.
    func applySnapshotPage(_ changes: [SyncChange], serverLostHistory: Bool) async throws -> Set<String> {
        try await store.writer.write { db in
            try Self.apply(db, changes, serverLostHistory: serverLostHistory)
            return Set(changes.map { "\($0.entity.rawValue)/\($0.key)" })
        }
    }

    /// Ends a snapshot: synced notes and catalog records no page held (`seen`) were deleted on the server, and
    /// are removed; unless `serverLostHistory` (restored from a backup, or another database), when they are what
    /// the server lost, and are queued to be created there again (`LocalStore.queueLostNote`, `queueLostRecord`).
    /// Pending ones stay for the next push to settle, and so do the local copies of records `setAside`. Saves
    /// the cursor, in one transaction.
    func finishSnapshot(seen: Set<String>, setAside: [SetAsideChange], cursor: String, serverLostHistory: Bool) async throws {
        let present = seen.union(setAside.map { "\($0.entity)/\($0.key)" })
        try await store.writer.write { db in
            var absent: [UUID] = []
            let synced = try UUID.fetchCursor(db.cachedStatement(sql: "SELECT id FROM notes WHERE sync_status = 'synced'"))
            while let id = try synced.next() {
                if !present.contains("notes/\(id.wireString)") { absent.append(id) }
            }
            if serverLostHistory {
                for id in absent { try LocalStore.queueLostNote(db, id) }
                try LocalStore.queueLostDeletes(db)
                // Base versions name versions of the lost history: pending changes are weighed afresh by last
                // write wins, as new changes (no base version), never fast-forwarded on a reused number.
                try db.execute(cachedSQL: "UPDATE notes SET server_version = 0 WHERE sync_status != 'synced'")
            } else {
                _ = try LocalNote.deleteAll(db, keys: absent)
            }
            for row in try Row.fetchAll(db, cachedSQL: "SELECT entity, key FROM catalog WHERE sync_status = 'synced'")
            where !present.contains("\(row["entity"] as String)/\(row["key"] as String)") {
                if serverLostHistory {
                    try LocalStore.queueLostRecord(db, entity: row["entity"], key: row["key"])
                } else {
                    try db.execute(cachedSQL: "DELETE FROM catalog WHERE entity = ? AND key = ?", arguments: [row["entity"], row["key"]])
                }
            }
            try LocalStore.saveCursor(db, cursor)
        }
    }

    /// Applies pulled changes. `serverLostHistory`: they are a snapshot of a server that lost changes this
    /// device saw (restored from a backup, or another database), see `applyServerNote`.
    private static func apply(_ db: Database, _ changes: [SyncChange], serverLostHistory: Bool = false) throws {
        // The identity of the local notes these changes may touch, read in one query, instead of a lookup per note.
        let index = try NoteIndex(
            db,
            for: changes.compactMap { change in
                if case .note(let note)? = change.record, change.op == .upsert { return note }
                return nil
            })
        let encoder = JSONEncoder()
        for change in changes {
            switch (change.record, change.op) {
            case (.note(let note)?, .upsert):
                try applyServerNote(db, note, index, serverLostHistory: serverLostHistory)
            case (_, .delete) where change.entity == .notes:
                guard let id = UUID(wireString: change.key) else { continue }
                try LocalStore.observeDelete(db, at: change.deletedAt)
                guard let note = try LocalNote.fetchOne(db, id: id) else {
                    try LocalStore.noteDeletedAgain(db, id: id, version: change.version, deletedAt: change.deletedAt)
                    continue
                }
                // A pending change stays: the push lets the server weigh an edit against the delete, and a
                // delete made here records its own time on the tombstone, which may be later than the pulled one's.
                if note.syncStatus == .synced || (note.syncStatus == .pendingDelete && note.isRejected) {
                    try LocalStore.removeDeletedNote(db, note, version: change.version, deletedAt: change.deletedAt)
                }
            case (let record?, .upsert):
                // A source edited here keeps its edit until the push; a species created here is the server's now.
                let state = try String.fetchOne(
                    db, cachedSQL: "SELECT sync_status FROM catalog WHERE entity = ? AND key = ?", arguments: [change.entity.rawValue, change.key])
                if change.entity == .sources, let state, state != NoteSyncStatus.synced.rawValue { continue }
                try LocalStore.saveRecord(db, entity: change.entity, key: change.key, json: try encoder.encode(record), status: .synced)
            default:
                try db.execute(
                    cachedSQL: "DELETE FROM catalog WHERE entity = ? AND key = ? AND sync_status = 'synced'",
                    arguments: [change.entity.rawValue, change.key])
            }
        }
    }

    /// Takes a pulled note into the cache. A note the device does not hold under its id or its species
    /// and source (every note of a first sync) is written straight away, with no read. An older copy than the
    /// device's is left out. When the server lost history, versions say nothing (the server's numbers are of
    /// another history): the device's copy, synced or not, and the server's are merged field by field, and what
    /// the server lacks is sent to it again.
    private static func applyServerNote(_ db: Database, _ server: Note, _ index: NoteIndex, serverLostHistory: Bool) throws {
        if let local = index.notes[server.id] {
            if serverLostHistory, var note = try LocalNote.fetchOne(db, id: server.id) {
                if note.syncStatus == .synced { note.syncStatus = .pendingUpload }
                return try merge(db, server, into: note)
            }
            guard server.version >= local.serverVersion else { return }
            if local.synced {
                try LocalNote(server: server).write(db, replacing: true)
            } else if let note = try LocalNote.fetchOne(db, id: server.id) {
                try merge(db, server, into: note)
            }
        } else if index.keys.contains(NoteIndex.Key(name: server.scientificName, sourceId: server.sourceId)),
            let twin = try LocalNote.fetchOne(db, species: server.scientificName, sourceId: server.sourceId)
        {
            // Another device created the note for this species and source: the server's id is the note's.
            if twin.syncStatus == .pendingUpload {
                try replace(db, twin, with: server)
            } else {
                try twin.delete(db)
                try LocalNote(server: server).write(db, replacing: false)
            }
        } else {
            try LocalNote(server: server).write(db, replacing: false)
        }
    }

    /// The server's copy and a local note, merged field by field (`SyncRules.merge`): the server's copy when
    /// the local note has no pending edit newer in any field (it is synced then); else the merge, still
    /// pending, now based on the server's version. A pending delete stays as it is: the server weighs it
    /// against its copy (fields written after the delete survive it there).
    private static func merge(_ db: Database, _ server: Note, into local: LocalNote) throws {
        guard local.syncStatus != .pendingDelete else { return }
        var note = local
        let merged = SyncRules.merge(server.timedFields, local.timedFields)
        if local.syncStatus == .synced || merged == server.timedFields {
            note.adopt(server)
        } else {
            note.take(merged)
            note.serverVersion = server.version
        }
        try note.update(db)
    }

    /// A local note the server knows under another id (two devices created it): the note takes the
    /// server's id and copy, merged field by field with the local pending edit.
    private static func replace(_ db: Database, _ local: LocalNote, with server: Note) throws {
        try local.delete(db)
        var note = LocalNote(server: server)
        let merged = SyncRules.merge(server.timedFields, local.timedFields)
        if local.syncStatus == .pendingUpload, merged != server.timedFields {
            note.take(merged)
            note.localVersion = local.localVersion
            note.syncStatus = .pendingUpload
        }
        try note.save(db)
    }
}

/// The identity and sync state of the local notes that pulled notes may touch: those with their ids, and
/// those of their species and source.
struct NoteIndex {
    struct Key: Hashable {
        let name: String
        let sourceId: Int
    }

    struct Entry {
        let serverVersion: Int64
        let synced: Bool
    }

    private(set) var notes: [UUID: Entry] = [:]
    private(set) var keys: Set<Key> = []

    /// Reads the index for `incoming` in one query per 300 notes (each binds three values), so a pull
    /// reads what it may touch rather than every local note.
    init(_ db: Database, for incoming: [Note]) throws {
        for start in stride(from: 0, to: incoming.count, by: 300) {
            let chunk = incoming[start..<min(start + 300, incoming.count)]
            let sql = """
                SELECT id, scientific_name, source_id, server_version, sync_status FROM notes
                WHERE id IN (\(databaseQuestionMarks(count: chunk.count)))
                UNION
                SELECT n.id, n.scientific_name, n.source_id, n.server_version, n.sync_status
                FROM (VALUES \(Array(repeating: "(?,?)", count: chunk.count).joined(separator: ","))) AS k
                JOIN notes n ON n.scientific_name = k.column1 AND n.source_id = k.column2
                """
            var arguments = StatementArguments(chunk.map(\.id))
            for note in chunk { arguments += [note.scientificName, note.sourceId] }
            // Kept by the connection, one statement per chunk size (at most 300): a pull compiled it for every page.
            let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
            while let row = try rows.next() {
                notes[row[0]] = Entry(serverVersion: row[3], synced: (row[4] as String) == NoteSyncStatus.synced.rawValue)
                keys.insert(Key(name: row[1], sourceId: row[2]))
            }
        }
    }
}

extension LocalNote {
    private static let insertSQL =
        "INTO notes (\(columnNames.joined(separator: ", "))) VALUES (\(databaseQuestionMarks(count: columnNames.count)))"

    /// Inserts the note, or replaces the row with its id, from a statement prepared once per connection
    /// (a pull writes thousands of notes; GRDB's record insert built each statement anew).
    func write(_ db: Database, replacing: Bool) throws {
        let statement = try db.cachedStatement(sql: (replacing ? "INSERT OR REPLACE " : "INSERT ") + Self.insertSQL)
        try statement.execute(arguments: StatementArguments(try columnValues))
    }
}
