import Foundation
import GRDB
import OakModels
import OakSQLite

/// The device's database: the compendium cache, the notes with their sync state, catalog records
/// created offline, and the sync cursor. A file on a device; in memory for tests and previews.
public final class LocalStore: Sendable {
    let writer: any DatabaseWriter
    /// The database file; nil for an in-memory store.
    public let path: String?
    /// The typed catalog, decoded once after each change of the catalog table instead of on every read.
    let catalogCache: CatalogCache
    private let writes = Broadcaster<Void>()

    /// Opens (creating and migrating if needed) the database at `path`. A write is on the disk when it
    /// returns: a note taken offline has no other copy until it is synced, so every commit syncs the
    /// write-ahead log (`synchronous = FULL`; GRDB's NORMAL syncs it only at checkpoints, and a phone that shuts
    /// down at once, as in the cold, could lose the last notes).
    public convenience init(path: String) throws {
        SQLiteSettings.apply()
        let pool = try DatabasePool(path: path)
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try self.init(writer: pool, path: path)
    }

    /// A store that lives in memory only, for tests and previews.
    public static func inMemory() throws -> LocalStore {
        SQLiteSettings.apply()
        return try LocalStore(writer: try DatabaseQueue(), path: nil)
    }

    private init(writer: any DatabaseWriter, path: String?) throws {
        self.writer = writer
        self.path = path
        catalogCache = CatalogCache()
        try Self.migrator.migrate(writer)
        writer.add(transactionObserver: catalogCache, extent: .databaseLifetime)
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
        migrator.registerMigration("v2: note columns, pending catalog records") { db in
            let fieldColumns = NoteFields.Field.allCases.map { "\($0.rawValue) TEXT" }.joined(separator: ", ")
            let fieldCopies = NoteFields.Field.allCases.map { "json_extract(fields, '$.\($0.rawValue)')" }.joined(separator: ", ")
            let fieldNames = NoteFields.Field.allCases.map(\.rawValue).joined(separator: ", ")
            try db.execute(
                sql: """
                    CREATE TABLE notes_v2 (
                        id BLOB PRIMARY KEY NOT NULL,
                        scientific_name TEXT NOT NULL,
                        source_id INTEGER NOT NULL,
                        subgenus TEXT, section TEXT, subsection TEXT, complex TEXT,
                        \(fieldColumns),
                        flowers TEXT, hardiness_habitat TEXT, is_preferred INTEGER NOT NULL DEFAULT 0,
                        created_at TEXT NOT NULL,
                        updated_at TEXT NOT NULL,
                        server_version INTEGER NOT NULL,
                        local_version INTEGER NOT NULL,
                        sync_status TEXT NOT NULL,
                        last_error TEXT
                    );
                    INSERT INTO notes_v2(id, scientific_name, source_id, subgenus, section, subsection, complex, \(fieldNames),
                        created_at, updated_at, server_version, local_version, sync_status, last_error)
                    SELECT id, scientific_name, source_id, json_extract(taxonomy, '$.subgenus'), json_extract(taxonomy, '$.section'),
                        json_extract(taxonomy, '$.subsection'), json_extract(taxonomy, '$.complex'), \(fieldCopies),
                        created_at, updated_at, server_version, local_version, sync_status, last_error
                    FROM notes;
                    DROP TABLE notes;
                    ALTER TABLE notes_v2 RENAME TO notes;
                    CREATE UNIQUE INDEX notes_species_source ON notes(scientific_name, source_id);
                    -- What waits to be pushed, in push order, without reading the synced notes.
                    CREATE INDEX notes_pushable ON notes(updated_at) WHERE sync_status != 'synced' AND last_error IS NULL;
                    CREATE INDEX notes_unsynced ON notes(sync_status) WHERE sync_status != 'synced';
                    ALTER TABLE catalog ADD COLUMN sync_status TEXT NOT NULL DEFAULT 'synced';
                    ALTER TABLE catalog ADD COLUMN last_error TEXT;
                    -- Cached notes lack the reference fields (flowers, hardiness, preferred): the next sync pulls everything again.
                    DELETE FROM sync_state WHERE key = 'cursor';
                    """)
        }
        migrator.registerMigration("v3: field times, deleted notes") { db in
            try db.execute(
                sql: """
                    -- When each field was last written, for those not written at updated_at (TimedFields).
                    ALTER TABLE notes ADD COLUMN field_times TEXT;
                    -- The last note of each species and source the device saw deleted, with its tombstone's version
                    -- and the delete's time when known: made again, it keeps its id; a restored server that lost
                    -- the delete is sent it again.
                    CREATE TABLE deleted_notes (
                        scientific_name TEXT NOT NULL,
                        source_id INTEGER NOT NULL,
                        id BLOB NOT NULL,
                        version INTEGER NOT NULL,
                        deleted_at TEXT,
                        PRIMARY KEY (scientific_name, source_id)
                    );
                    CREATE UNIQUE INDEX deleted_notes_id ON deleted_notes(id);
                    """)
        }
        return migrator
    }

    /// Runs a short read (a note, a count, the cursor) on the calling thread: it takes microseconds, less than the
    /// two thread hops of an asynchronous read (a sync makes about ten). A pool's reads never wait for its writer,
    /// so a caller on the main actor is not held up by a sync writing a pulled page.
    ///
    /// No transaction is opened around it: each of these reads is one query, and a statement is a snapshot of its own
    /// (a species' notes look the species' stored name up first: a species a sync adds between the two shows in the
    /// next read). The `BEGIN` and `COMMIT` of a transaction would be most of such a read's cost.
    func read<T>(_ value: (Database) throws -> T) throws -> T {
        try writer.unsafeRead(value)
    }

    // MARK: Compendium cache

    /// The catalog as it is now: species, taxa and sources, typed.
    public func catalog() async throws -> CatalogSnapshot {
        if let cached = catalogCache.current { return cached }
        let generation = catalogCache.generation
        let snapshot = try await writer.read { db in try CatalogSnapshot.load(db) }
        catalogCache.store(snapshot, ifStill: generation)
        return snapshot
    }

    /// The catalog now and after every change (a pull, a record created offline, the starter import).
    public func observeCatalog() -> AsyncStream<CatalogSnapshot> {
        let observation = ValueObservation.tracking { db in try CatalogSnapshot.load(db) }.removeDuplicates()
        return Self.stream(of: observation, in: writer, label: "oak.catalog.observe")
    }

    /// A cached species, if the catalog has it.
    public func species(named name: String) async throws -> Species? {
        try await catalog().species(named: name)
    }

    /// Every cached species, by name.
    public func allSpecies() async throws -> [Species] {
        try await catalog().species
    }

    /// Every cached taxon.
    public func taxa() async throws -> [Taxon] {
        try await catalog().taxa
    }

    /// Every cached source.
    public func sources() async throws -> [Source] {
        try await catalog().sources
    }

    /// The species' data from every source, as notes (personal observations included).
    public func sourceData(of name: String) async throws -> [LocalNote] {
        try await writer.read { db in try Self.sourceDataRequest(db, name).fetchAll(db) }
    }

    private static func sourceDataRequest(_ db: Database, _ name: String) throws -> QueryInterfaceRequest<LocalNote> {
        LocalNote.filter(LocalNote.CodingKeys.scientificName == (try storedSpeciesName(db, name)))
            .filter(LocalNote.CodingKeys.syncStatus != NoteSyncStatus.pendingDelete.rawValue)
            .order(LocalNote.CodingKeys.sourceId)
    }

    /// The same list as `sourceData(of:)`, sent again whenever it changes.
    public func observeSourceData(of name: String) -> AsyncStream<[LocalNote]> {
        let observation = ValueObservation.tracking { db in try Self.sourceDataRequest(db, name).fetchAll(db) }.removeDuplicates()
        return Self.stream(of: observation, in: writer, label: "oak.sourcedata.observe")
    }

    /// Species matching `query` offline, ranked as the server's search ranks them (see `SpeciesSearch`).
    public func searchSpecies(_ query: String, limit: Int = 50) async throws -> [Species] {
        let catalog = try await catalog()
        let names = try await writer.read { db in
            var names: [String: [String]] = [:]
            let rows = try Row.fetchCursor(
                db, sql: "SELECT scientific_name, commonNames FROM notes WHERE commonNames IS NOT NULL AND sync_status != 'pendingDelete'")
            while let row = try rows.next() {
                names[row[0], default: []] += NoteFields.localNames(from: row[1])
            }
            return names
        }
        return SpeciesSearch(query: query).rank(catalog.species, localNames: { names[$0.scientificName] ?? [] }, limit: limit)
    }

    /// The values of an observation as a stream that keeps only the newest unread one.
    static func stream<Reducer: ValueReducer>(of observation: ValueObservation<Reducer>, in writer: any DatabaseWriter, label: String)
        -> AsyncStream<Reducer.Value> where Reducer.Value: Sendable
    {
        AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let cancellable = observation.start(
                in: writer, scheduling: .async(onQueue: DispatchQueue(label: label)),
                onError: { _ in continuation.finish() }, onChange: { continuation.yield($0) })
            continuation.onTermination = { _ in cancellable.cancel() }
        }
    }

    /// Tells the engine's debounced trigger that a repository wrote something to push.
    func localWriteHappened() {
        writes.yield(())
    }

    /// Sends a value after every local write of a repository.
    func localWrites() -> AsyncStream<Void> {
        writes.stream()
    }

    /// How many notes the device holds, from every source.
    public func noteCount() async throws -> Int {
        try read { db in try LocalNote.fetchCount(db) }
    }

    /// How many changes wait to be pushed: notes and catalog records (rejected ones included).
    public func pendingChangeCount() async throws -> Int {
        try read { db in try Self.pendingChangeCount(db) }
    }

    static func pendingChangeCount(_ db: Database) throws -> Int {
        try Int.fetchOne(
            db,
            cachedSQL: "SELECT (SELECT COUNT(*) FROM notes WHERE sync_status != 'synced') + (SELECT COUNT(*) FROM catalog WHERE sync_status != 'synced')"
        ) ?? 0
    }

    /// Forgets every change not yet synced (a sign-out the user confirmed): pending notes and catalog
    /// records are deleted, and the next sync pulls everything again to restore the server's copies.
    public func discardUnsyncedChanges() async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    DELETE FROM notes WHERE sync_status != 'synced';
                    DELETE FROM catalog WHERE sync_status != 'synced';
                    DELETE FROM sync_state WHERE key = 'cursor';
                    """)
        }
    }

    // MARK: Sync state

    /// The cursor of the last applied pull; nil before the first sync.
    public func cursor() async throws -> String? {
        try read { db in try Self.cursor(db) }
    }

    static func cursor(_ db: Database) throws -> String? {
        try value(db, "cursor")
    }

    /// When a sync last completed; nil if none has.
    public func lastSuccessfulSync() async throws -> Date? {
        try read { db in try Self.value(db, "last_sync").flatMap(WireTime.parse) }
    }

    /// Records that a sync completed at `time`; how many changes still wait to be pushed (`pendingChangeCount`).
    func recordSuccessfulSync(at time: Date) async throws -> Int {
        try await writer.write { db in
            try Self.setValue(db, "last_sync", WireTime.format(time))
            return try Self.pendingChangeCount(db)
        }
    }

    static func saveCursor(_ db: Database, _ cursor: String) throws {
        try setValue(db, "cursor", cursor)
    }

    static func value(_ db: Database, _ key: String) throws -> String? {
        try String.fetchOne(db, cachedSQL: "SELECT value FROM sync_state WHERE key = ?", arguments: [key])
    }

    static func setValue(_ db: Database, _ key: String, _ value: String) throws {
        try db.execute(
            cachedSQL: "INSERT INTO sync_state(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            arguments: [key, value])
    }

    // MARK: Deleted notes

    /// Removes a note the server deleted (its tombstone at `version`, the delete at `deletedAt` when known),
    /// remembering it for its species and source: the note made again there keeps the id
    /// (`NotesRepository.create`), and a restored server that lost the delete is sent it again (`queueLostDeletes`).
    static func removeDeletedNote(_ db: Database, _ note: LocalNote, version: Int64?, deletedAt: Date?) throws {
        try note.delete(db)
        guard let version else { return }
        try db.execute(
            cachedSQL: "INSERT OR REPLACE INTO deleted_notes(scientific_name, source_id, id, version, deleted_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [note.scientificName, note.sourceId, note.id, version, deletedAt.map(WireTime.formatPrecise)])
    }

    /// A pulled delete of a note the device removed already: its tombstone's version and time are the latest.
    static func noteDeletedAgain(_ db: Database, id: UUID, version: Int64, deletedAt: Date?) throws {
        try db.execute(
            cachedSQL: "UPDATE deleted_notes SET version = ?, deleted_at = COALESCE(?, deleted_at) WHERE id = ?",
            arguments: [version, deletedAt.map(WireTime.formatPrecise), id])
    }

    /// After a snapshot of a server that lost history (restored from a backup, or another database): every
    /// delete the device saw, with its time, is sent again, weighed against what the server holds, so a delete
    /// the server lost does not bring the note back. The note the snapshot holds is hidden until the push.
    static func queueLostDeletes(_ db: Database) throws {
        for row in try Row.fetchAll(db, cachedSQL: "SELECT scientific_name, source_id, id, deleted_at FROM deleted_notes WHERE deleted_at IS NOT NULL") {
            guard let deletedAt = WireTime.parse(row["deleted_at"]) else { continue }
            var note =
                try LocalNote.fetchOne(db, id: row["id"] as UUID)
                ?? LocalNote(
                    server: Note(id: row["id"], scientificName: row["scientific_name"], sourceId: row["source_id"], createdAt: deletedAt, updatedAt: deletedAt))
            guard note.syncStatus == .synced else { continue }
            note.updatedAt = deletedAt
            note.serverVersion = 0
            note.syncStatus = .pendingDelete
            try note.save(db)
        }
    }

    /// The latest time a delete the device saw was made at: of the deleted notes it remembers, and of the deletes
    /// it learned of while the note had a change of its own pending (`observeDelete`).
    static func latestDelete(_ db: Database) throws -> Date? {
        try String.fetchOne(
            db,
            cachedSQL: """
                SELECT MAX(t) FROM (SELECT MAX(deleted_at) AS t FROM deleted_notes
                UNION ALL SELECT value FROM sync_state WHERE key = 'latest_delete_seen')
                """
        ).flatMap(WireTime.parse)
    }

    /// Remembers the time of a delete the device learned of (pulled, or told by a push), for its clock: a write
    /// made after learning of it is timed after it, even when the note stays here (a change of its own pending).
    static func observeDelete(_ db: Database, at time: Date?) throws {
        guard let time else { return }
        // The precise form has a fixed width, so its text orders as its time.
        try db.execute(
            cachedSQL: """
                INSERT INTO sync_state(key, value) VALUES ('latest_delete_seen', ?)
                ON CONFLICT(key) DO UPDATE SET value = MAX(value, excluded.value)
                """,
            arguments: [WireTime.formatPrecise(time)])
    }

    /// The id and tombstone version of the last note of a species and source the device saw deleted.
    static func deletedNote(_ db: Database, name: String, sourceId: Int) throws -> (id: UUID, version: Int64)? {
        try Row.fetchOne(
            db, cachedSQL: "SELECT id, version FROM deleted_notes WHERE scientific_name = ? AND source_id = ?", arguments: [name, sourceId]
        ).map { ($0["id"], $0["version"]) }
    }

    /// Forgets the deleted note of a species and source (a note lives there again).
    static func forgetDeletedNote(_ db: Database, name: String, sourceId: Int) throws {
        try db.execute(cachedSQL: "DELETE FROM deleted_notes WHERE scientific_name = ? AND source_id = ?", arguments: [name, sourceId])
    }

    /// Folds the write-ahead log into the database file (after a snapshot, which writes a lot at once).
    func checkpoint() async throws {
        guard path != nil else { return }
        _ = try await writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
    }
}

/// The decoded catalog, dropped whenever a transaction that changed the catalog table commits.
final class CatalogCache: TransactionObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var snapshot: CatalogSnapshot?
    private var changes = 0
    private var touched = false

    var current: CatalogSnapshot? { lock.withLock { snapshot } }
    var generation: Int { lock.withLock { changes } }

    /// Keeps a snapshot read at `generation` unless the catalog changed since.
    func store(_ value: CatalogSnapshot, ifStill generation: Int) {
        lock.withLock { if changes == generation { snapshot = value } }
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        eventKind.tableName == "catalog"
    }

    func databaseDidChange(with event: DatabaseEvent) {
        touched = true
    }

    func databaseDidCommit(_ db: Database) {
        guard touched else { return }
        touched = false
        lock.withLock {
            changes += 1
            snapshot = nil
        }
    }

    func databaseDidRollback(_ db: Database) {
        touched = false
    }
}
