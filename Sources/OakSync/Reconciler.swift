import Foundation
import GRDB
import OakModels

/// Applies what the server says (push results, pulled changes) to the local database, one transaction
/// per batch, following last write wins and never losing a pending local change the server has not judged.
struct Reconciler: Sendable {
    let store: LocalStore

    /// Ids of the notes with a change to push: pending and not rejected (a rejected one waits for an edit).
    func pushableIDs() async throws -> [UUID] {
        try await store.writer.read { db in
            try LocalNote.select(LocalNote.CodingKeys.id, as: UUID.self)
                .filter(LocalNote.CodingKeys.syncStatus != NoteSyncStatus.synced.rawValue)
                .filter(LocalNote.CodingKeys.lastError == nil)
                .order(LocalNote.CodingKeys.updatedAt).fetchAll(db)
        }
    }

    /// The current state of those notes that are still pushable.
    func pushable(_ ids: [UUID]) async throws -> [LocalNote] {
        try await store.writer.read { db in
            try LocalNote.fetchAll(db, keys: ids).filter { $0.syncStatus != .synced && $0.lastError == nil }
        }
    }

    /// Applies the results of a push of `sent` (the notes as they were when pushed).
    func applyPushResults(_ results: [PushResult], sent: [LocalNote]) async throws {
        let sentByID = Dictionary(sent.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        try await store.writer.write { db in
            for result in results {
                guard let snapshot = sentByID[result.id], var note = try LocalNote.fetchOne(db, key: result.id) else { continue }
                let editedInFlight = note.localVersion != snapshot.localVersion
                switch result.status {
                case .applied:
                    if editedInFlight {
                        // The server now holds the pushed edit; the newer one builds on it.
                        note.serverVersion = result.version ?? note.serverVersion
                        try note.update(db)
                    } else if let stored = result.note {
                        note.adopt(stored)
                        try note.update(db)
                    } else {
                        try note.delete(db)
                    }
                case .stale:
                    guard let winner = result.note else {
                        // The server deleted the note and that delete won.
                        if !editedInFlight { try note.delete(db) }
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

    /// Replaces the cache with a full snapshot (every page of a pull without cursor) and saves the cursor,
    /// in one transaction. Synced notes and cached records the snapshot lacks are gone on the server;
    /// pending notes stay for the next push to settle, and so do the local copies of records `setAside`.
    func applySnapshot(_ changes: [SyncChange], setAside: [SetAsideChange], cursor: String) async throws {
        try await store.writer.write { db in
            try Self.apply(db, changes)
            let present = changes.map { ($0.entity.rawValue, $0.key) } + setAside.map { ($0.entity, $0.key) }
            let noteIDs = Set(present.filter { $0.0 == SyncEntity.notes.rawValue }.compactMap { UUID(uuidString: $0.1) })
            for note in try LocalNote.filter(LocalNote.CodingKeys.syncStatus == NoteSyncStatus.synced.rawValue).fetchAll(db)
            where !noteIDs.contains(note.id) {
                try note.delete(db)
            }
            let catalogKeys = Set(present.filter { $0.0 != SyncEntity.notes.rawValue }.map { "\($0.0)/\($0.1)" })
            for row in try Row.fetchAll(db, sql: "SELECT entity, key FROM catalog") where !catalogKeys.contains("\(row["entity"] as String)/\(row["key"] as String)") {
                try db.execute(sql: "DELETE FROM catalog WHERE entity = ? AND key = ?", arguments: [row["entity"], row["key"]])
            }
            try LocalStore.saveCursor(db, cursor)
        }
    }

    private static func apply(_ db: Database, _ changes: [SyncChange]) throws {
        for change in changes {
            switch (change.record, change.op) {
            case (.note(let note)?, .upsert):
                try applyServerNote(db, note)
            case (_, .delete) where change.entity == .notes:
                guard let id = UUID(uuidString: change.key), let note = try LocalNote.fetchOne(db, key: id) else { continue }
                // A pending upload stays: the push lets the server weigh it against the delete.
                if note.syncStatus != .pendingUpload { try note.delete(db) }
            case (let record?, .upsert):
                let json = String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
                try db.execute(
                    sql: "INSERT INTO catalog(entity, key, record) VALUES (?, ?, ?) ON CONFLICT(entity, key) DO UPDATE SET record = excluded.record",
                    arguments: [change.entity.rawValue, change.key, json])
            default:
                try db.execute(sql: "DELETE FROM catalog WHERE entity = ? AND key = ?", arguments: [change.entity.rawValue, change.key])
            }
        }
    }

    /// Takes a pulled note into the cache.
    private static func applyServerNote(_ db: Database, _ server: Note) throws {
        if let local = try LocalNote.fetchOne(db, key: server.id) {
            guard server.version >= local.serverVersion else { return }
            try merge(db, server, into: local)
        } else if let twin = try LocalNote.filter(
            LocalNote.CodingKeys.scientificName == server.scientificName && LocalNote.CodingKeys.sourceId == server.sourceId
        ).fetchOne(db) {
            // Another device created the note for this species and source: the server's id is the note's.
            if twin.syncStatus == .pendingUpload {
                try replace(db, twin, with: server)
            } else {
                try twin.delete(db)
                try LocalNote(server: server).insert(db)
            }
        } else {
            try LocalNote(server: server).insert(db)
        }
    }

    /// The server's copy replaces a local note unless the local one has a pending change that is newer.
    /// The pending change keeps its base version, so the server weighs it by last write wins too.
    private static func merge(_ db: Database, _ server: Note, into local: LocalNote) throws {
        guard local.syncStatus == .synced || !local.pendingChangeWins(over: server) else { return }
        var note = local
        note.adopt(server)
        try note.update(db)
    }

    /// A local note the server knows under another id (two devices created it): the note takes the
    /// server's id and copy, and the local edit is re-applied on top if it is newer.
    private static func replace(_ db: Database, _ local: LocalNote, with server: Note) throws {
        try local.delete(db)
        var note = LocalNote(server: server)
        if local.syncStatus == .pendingUpload, local.pendingChangeWins(over: server) {
            note.fields = local.fields
            note.updatedAt = local.updatedAt
            note.serverVersion = 0
            note.localVersion = local.localVersion
            note.syncStatus = .pendingUpload
        }
        try note.save(db)
    }
}
