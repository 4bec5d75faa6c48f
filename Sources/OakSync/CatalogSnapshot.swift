import Foundation
import GRDB
import OakModels
import OakSQLite

/// Where a catalog record created or edited on this device stands with the server.
public enum CatalogSyncState: Hashable, Sendable {
    /// The record equals the server's copy.
    case synced
    /// A local create or edit waits to be pushed.
    case pendingUpload
    /// The server rejected the change; it waits for an edit.
    case rejected(OakError)
}

/// The device's catalog at one moment, typed: every species, taxon and source, plus the sync state of
/// the records created or edited here.
public struct CatalogSnapshot: Hashable, Sendable {
    /// Every species, by name.
    public private(set) var species: [Species]
    /// Every taxon, by level then name.
    public private(set) var taxa: [Taxon]
    /// Every source, by id (sources created offline have negative ids until the server assigns one).
    public private(set) var sources: [Source]
    private var speciesIndex: [String: Int]
    private var sourceIndex: [Int: Int]
    private var states: [String: CatalogSyncState]

    public init(species: [Species] = [], taxa: [Taxon] = [], sources: [Source] = [], states: [String: CatalogSyncState] = [:]) {
        self.species = species.sorted { $0.scientificName < $1.scientificName }
        self.taxa = taxa.sorted { ($0.level.depth, $0.name) < ($1.level.depth, $1.name) }
        self.sources = sources.sorted { $0.id < $1.id }
        speciesIndex = Dictionary(self.species.enumerated().map { ($1.scientificName, $0) }, uniquingKeysWith: { first, _ in first })
        sourceIndex = Dictionary(self.sources.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.states = states
    }

    /// A species by name, in any spelling the server accepts ("Quercus alba", "x bebbiana"), the exact stored
    /// name first, as the server looks it up (`Species.storedSpellings`).
    public func species(named name: String) -> Species? {
        Species.storedSpellings(of: name).lazy.compactMap { speciesIndex[$0] }.first.map { species[$0] }
    }

    /// A source by id.
    public func source(id: Int) -> Source? {
        sourceIndex[id].map { sources[$0] }
    }

    /// The sync state of a species created here (synced for every other one).
    public func syncState(ofSpecies name: String) -> CatalogSyncState {
        states[CatalogKey.species(Species.normalizedName(name)).text] ?? .synced
    }

    /// The sync state of a source created or edited here (synced for every other one).
    public func syncState(ofSource id: Int) -> CatalogSyncState {
        states[CatalogKey.source(id).text] ?? .synced
    }

    /// How many catalog records wait to be pushed.
    public var pendingCount: Int {
        states.values.filter { $0 != .synced }.count
    }

    /// Reads the whole catalog table.
    static func load(_ db: Database) throws -> CatalogSnapshot {
        var species: [Species] = []
        var taxa: [Taxon] = []
        var sources: [Source] = []
        var states: [String: CatalogSyncState] = [:]
        let decoder = JSONDecoder()
        for row in try Row.fetchAll(db, cachedSQL: "SELECT entity, key, record, sync_status, last_error FROM catalog") {
            let entity: String = row[0]
            let record = Data((row[2] as String).utf8)
            switch SyncEntity(rawValue: entity) {
            case .species?: species.append(try decoder.decode(Species.self, from: record))
            case .taxa?: taxa.append(try decoder.decode(Taxon.self, from: record))
            case .sources?: sources.append(try decoder.decode(Source.self, from: record))
            default: continue
            }
            if (row[3] as String) != NoteSyncStatus.synced.rawValue {
                let error = (row[4] as String?).flatMap { try? decoder.decode(OakError.self, from: Data($0.utf8)) }
                states["\(entity)/\(row[1] as String)"] = error.map { CatalogSyncState.rejected($0) } ?? .pendingUpload
            }
        }
        return CatalogSnapshot(species: species, taxa: taxa, sources: sources, states: states)
    }
}

/// A catalog table row's identity: its entity and key.
enum CatalogKey: Hashable, Sendable {
    case species(String)
    case source(Int)

    var entity: SyncEntity {
        switch self {
        case .species: .species
        case .source: .sources
        }
    }

    var key: String {
        switch self {
        case .species(let name): name
        case .source(let id): String(id)
        }
    }

    var text: String { "\(entity.rawValue)/\(key)" }
}

extension LocalStore {
    /// One catalog record, decoded.
    static func record<Record: Decodable>(_ db: Database, _ key: CatalogKey) throws -> Record? {
        let json = try String.fetchOne(
            db, cachedSQL: "SELECT record FROM catalog WHERE entity = ? AND key = ?", arguments: [key.entity.rawValue, key.key])
        return try json.map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
    }

    /// The name a species asked for as `name` is cached under: the first of its stored spellings the catalog
    /// holds (the exact name first, as the server looks it up), else the name normalized.
    static func storedSpeciesName(_ db: Database, _ name: String) throws -> String {
        for spelling in Species.storedSpellings(of: name)
        where try Bool.fetchOne(db, cachedSQL: "SELECT EXISTS(SELECT 1 FROM catalog WHERE entity = 'species' AND key = ?)", arguments: [spelling]) == true {
            return spelling
        }
        return Species.normalizedName(name)
    }

    /// Writes a catalog record with its sync state (a rejection cleared).
    static func saveRecord(_ db: Database, _ key: CatalogKey, _ record: some Encodable, status: NoteSyncStatus) throws {
        try saveRecord(db, entity: key.entity, key: key.key, json: try JSONEncoder().encode(record), status: status)
    }

    /// The id a source created on this device takes until the server numbers it: below every id in use.
    static func nextLocalSourceID(_ db: Database) throws -> Int {
        let lowest = try Int.fetchOne(db, cachedSQL: "SELECT MIN(CAST(key AS INTEGER)) FROM catalog WHERE entity = 'sources'") ?? 0
        return min(lowest, 0) - 1
    }

    /// Moves the notes of a renumbered source to its new id.
    static func moveNotes(_ db: Database, fromSource oldID: Int, to newID: Int) throws {
        try db.execute(cachedSQL: "UPDATE notes SET source_id = ? WHERE source_id = ?", arguments: [newID, oldID])
    }

    /// Queues a synced note the server lost (restored from a backup, or another database) to be sent to it
    /// again as new: no base version, so last write wins weighs it against any copy the server has.
    static func queueLostNote(_ db: Database, _ id: UUID) throws {
        try db.execute(
            cachedSQL: "UPDATE notes SET sync_status = ?, server_version = 0 WHERE id = ?", arguments: [NoteSyncStatus.pendingUpload.rawValue, id])
    }

    /// Queues a synced catalog record the server lost (restored from a backup, or another database) to be
    /// created there again: a species as it is, a source under a new local id (its notes follow it), as if it
    /// had been made offline. Other records are left as they are.
    static func queueLostRecord(_ db: Database, entity: String, key: String) throws {
        switch SyncEntity(rawValue: entity) {
        case .species?:
            try db.execute(
                cachedSQL: "UPDATE catalog SET sync_status = ? WHERE entity = ? AND key = ?", arguments: [NoteSyncStatus.pendingUpload.rawValue, entity, key])
        case .sources?:
            guard let oldID = Int(key), var source = try record(db, .source(oldID)) as Source? else { return }
            source.id = try nextLocalSourceID(db)
            try db.execute(cachedSQL: "DELETE FROM catalog WHERE entity = ? AND key = ?", arguments: [entity, key])
            try saveRecord(db, .source(source.id), source, status: .pendingUpload)
            try moveNotes(db, fromSource: oldID, to: source.id)
        default:
            break
        }
    }

    static func saveRecord(_ db: Database, entity: SyncEntity, key: String, json: Data, status: NoteSyncStatus) throws {
        try db.execute(
            cachedSQL: """
                INSERT INTO catalog(entity, key, record, sync_status, last_error) VALUES (?, ?, ?, ?, NULL)
                ON CONFLICT(entity, key) DO UPDATE SET record = excluded.record, sync_status = excluded.sync_status, last_error = NULL
                """,
            arguments: [entity.rawValue, key, String(decoding: json, as: UTF8.self), status.rawValue])
    }
}
