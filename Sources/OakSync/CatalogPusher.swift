import Foundation
import GRDB
import OakClient
import OakModels
import OakSQLite

/// Pushes the catalog records created or edited on this device, sources first (notes may name them),
/// then species. Each push is safe to repeat after a lost answer: a species the server already has is
/// taken as created, and a new source is first looked for on the server by its identity (type, name,
/// author, year, URL), so a create that succeeded unseen is adopted instead of made twice.
struct CatalogPusher: Sendable {
    let store: LocalStore

    private struct Pending {
        let key: CatalogKey
        let record: Data
    }

    /// The catalog rows to push: created or edited here, and not rejected (a rejected one waits for an edit).
    private static let pendingRows = "catalog WHERE sync_status != 'synced' AND last_error IS NULL"

    /// Whether any catalog record waits to be pushed.
    func hasPending() async throws -> Bool {
        try store.read { db in try Bool.fetchOne(db, cachedSQL: "SELECT EXISTS(SELECT 1 FROM \(Self.pendingRows))") ?? false }
    }

    /// Pushes every pending catalog record; a record the server rejects is marked with the reason.
    func push(_ client: OakClient, retry: RetryPolicy, sleeper: any Sleeper) async throws {
        let pending = try store.read { db in
            try Row.fetchAll(
                db,
                cachedSQL: """
                    SELECT entity, key, record FROM \(Self.pendingRows)
                    ORDER BY entity = 'species', CAST(key AS INTEGER) DESC, key
                    """
            ).compactMap { row -> Pending? in
                let record = Data((row["record"] as String).utf8)
                switch SyncEntity(rawValue: row["entity"]) {
                case .species?: return Pending(key: .species(row["key"]), record: record)
                case .sources?: return (row["key"] as String?).flatMap(Int.init).map { Pending(key: .source($0), record: record) }
                default: return nil
                }
            }
        }
        for item in pending {
            do {
                try await retry.run(sleeper: sleeper) { try await push(item, client) }
            } catch let error as OakClientError {
                // A record the server refuses waits for an edit; anything else fails the sync, to be tried again.
                guard let status = error.status, [400, 404, 413, 422].contains(status), let reason = error.serverError else { throw error }
                try await reject(item.key, reason)
            }
        }
    }

    private func push(_ item: Pending, _ client: OakClient) async throws {
        switch item.key {
        case .species(let name):
            let stored: Species
            do {
                stored = try await client.createSpecies(try JSONDecoder().decode(SpeciesPatch.self, from: item.record))
            } catch let error as OakClientError where error.status == 409 {
                stored = try await client.species(named: name)
            }
            try await settle(item, as: .species(stored.scientificName), stored)
        case .source(let id) where id < 0:
            let source = try JSONDecoder().decode(Source.self, from: item.record)
            let existing = try await client.listSources().first { $0.hasSameIdentity(as: source) }
            var stored = existing
            if stored == nil { stored = try await client.createSource(try JSONDecoder().decode(SourcePatch.self, from: item.record)) }
            guard let stored else { return }
            try await settle(item, as: .source(stored.id), stored)
        case .source(let id):
            let stored = try await client.updateSource(id: id, with: try JSONDecoder().decode(SourcePatch.self, from: item.record))
            try await settle(item, as: .source(stored.id), stored)
        }
    }

    /// Takes the server's copy, unless the record was edited again meanwhile (then only a new source id
    /// is taken, and the edit waits for the next push). Notes on a renumbered source follow it.
    private func settle(_ item: Pending, as key: CatalogKey, _ stored: some Encodable & Sendable) async throws {
        try await store.writer.write { db in
            let current = try String.fetchOne(
                db, cachedSQL: "SELECT record FROM catalog WHERE entity = ? AND key = ?", arguments: [item.key.entity.rawValue, item.key.key])
            let editedMeanwhile = current.map { Data($0.utf8) != item.record } ?? false
            try db.execute(cachedSQL: "DELETE FROM catalog WHERE entity = ? AND key = ?", arguments: [item.key.entity.rawValue, item.key.key])
            if editedMeanwhile, let current, case .source(let newID) = key {
                var edited = try JSONDecoder().decode(Source.self, from: Data(current.utf8))
                edited.id = newID
                try LocalStore.saveRecord(db, key, edited, status: .pendingUpload)
            } else {
                try LocalStore.saveRecord(db, key, stored, status: .synced)
            }
            if case .source(let oldID) = item.key, case .source(let newID) = key, oldID != newID {
                try LocalStore.moveNotes(db, fromSource: oldID, to: newID)
            }
        }
    }

    private func reject(_ key: CatalogKey, _ error: OakError) async throws {
        let json = String(decoding: try JSONEncoder().encode(error), as: UTF8.self)
        try await store.writer.write { db in
            try db.execute(
                cachedSQL: "UPDATE catalog SET last_error = ? WHERE entity = ? AND key = ?", arguments: [json, key.entity.rawValue, key.key])
        }
    }
}

extension Source {
    /// Whether two sources describe the same work: same type, name, author, year and URL.
    func hasSameIdentity(as other: Source) -> Bool {
        (sourceType, name, author, year, url) == (other.sourceType, other.name, other.author, other.year, other.url)
    }
}
