import Foundation
import GRDB
import OakModels

/// The device's database file: the compendium cache, the notes with their sync state, and the sync cursor.
public final class LocalStore: Sendable {
    let writer: any DatabaseWriter
    /// The database file.
    public let path: String

    /// Opens (creating and migrating if needed) the database at `path`.
    public init(path: String) throws {
        self.path = path
        writer = try DatabasePool(path: path)
        try Self.migrator.migrate(writer)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE notes (
                        id BLOB PRIMARY KEY NOT NULL,
                        scientific_name TEXT NOT NULL,
                        source_id INTEGER NOT NULL,
                        taxonomy TEXT NOT NULL,
                        fields TEXT NOT NULL,
                        created_at TEXT NOT NULL,
                        updated_at TEXT NOT NULL,
                        server_version INTEGER NOT NULL,
                        local_version INTEGER NOT NULL,
                        sync_status TEXT NOT NULL,
                        last_error TEXT
                    );
                    CREATE UNIQUE INDEX notes_species_source ON notes(scientific_name, source_id);
                    CREATE INDEX notes_sync_status ON notes(sync_status);
                    CREATE TABLE catalog (
                        entity TEXT NOT NULL,
                        key TEXT NOT NULL,
                        record TEXT NOT NULL,
                        PRIMARY KEY (entity, key)
                    );
                    CREATE TABLE sync_state (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    """)
        }
        return migrator
    }

    // MARK: Compendium cache

    /// A cached species, if the first sync brought it.
    public func species(named name: String) async throws -> Species? {
        try await writer.read { db in try Self.record(db, .species, key: Species.normalizedName(name)) }
    }

    /// Every cached species, by name.
    public func allSpecies() async throws -> [Species] {
        try await writer.read { db in try Self.records(db, .species) }
    }

    /// Every cached taxon.
    public func taxa() async throws -> [Taxon] {
        try await writer.read { db in try Self.records(db, .taxa) }
    }

    /// Every cached source.
    public func sources() async throws -> [Source] {
        try await writer.read { db in try Self.records(db, .sources) }
    }

    /// The species' data from every source, as notes (personal observations included).
    public func sourceData(of name: String) async throws -> [LocalNote] {
        try await writer.read { db in
            try LocalNote.filter(LocalNote.CodingKeys.scientificName == Species.normalizedName(name))
                .filter(LocalNote.CodingKeys.syncStatus != NoteSyncStatus.pendingDelete.rawValue)
                .order(LocalNote.CodingKeys.sourceId).fetchAll(db)
        }
    }

    static func record<Record: Decodable>(_ db: Database, _ entity: SyncEntity, key: String) throws -> Record? {
        let json = try String.fetchOne(db, sql: "SELECT record FROM catalog WHERE entity = ? AND key = ?", arguments: [entity.rawValue, key])
        return try json.map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
    }

    static func records<Record: Decodable>(_ db: Database, _ entity: SyncEntity) throws -> [Record] {
        try String.fetchAll(db, sql: "SELECT record FROM catalog WHERE entity = ? ORDER BY key", arguments: [entity.rawValue])
            .map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
    }

    // MARK: Sync state

    /// The cursor of the last applied pull; nil before the first sync.
    public func cursor() async throws -> String? {
        try await writer.read { db in try Self.cursor(db) }
    }

    static func cursor(_ db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM sync_state WHERE key = 'cursor'")
    }

    /// When a sync last completed; nil if none has.
    public func lastSuccessfulSync() async throws -> Date? {
        try await writer.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM sync_state WHERE key = 'last_sync'").flatMap(WireTime.parse)
        }
    }

    func recordSuccessfulSync(at time: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: "INSERT INTO sync_state(key, value) VALUES ('last_sync', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [WireTime.format(time)])
        }
    }

    static func saveCursor(_ db: Database, _ cursor: String) throws {
        try db.execute(
            sql: "INSERT INTO sync_state(key, value) VALUES ('cursor', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            arguments: [cursor])
    }
}
