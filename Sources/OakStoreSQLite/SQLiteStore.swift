import Foundation
import GRDB
import OakModels
import OakSQLite
import OakStore
import OakStoreKit

/// The embedded SQLite store: on a file, WAL mode with a pool of readers and one writer (GRDB `DatabasePool`).
public final class SQLiteStore: Sendable {
    let pool: any DatabaseWriter
    let exportCache = ExportCache<ExportLayout>()
    let searchIndex = SearchIndexBox()
    let activity = PoolActivity()
    /// Checkpoints a file's write-ahead log in the background (nil for a database its caller opened).
    let checkpointer: LogCheckpointer?
    /// The server's clock: note timestamps, push clamping. Tests inject a controlled one.
    let clock: @Sendable () -> Date

    /// The database file's path (`:memory:` for a store in memory).
    public var path: String { pool.path }

    /// Opens (creating if needed) a database file and migrates it forward in place. A write is on the disk
    /// when it returns (the log is synced at every commit).
    /// - Parameter seedStarterData: give a database without species the bundled starter dataset.
    public convenience init(path: String, seedStarterData: Bool = true, clock: @escaping @Sendable () -> Date = Date.init) throws {
        SQLiteSettings.apply()
        var configuration = Self.configuration
        configuration.maximumReaderCount = Self.maxReaders
        let checkpointer = LogCheckpointer(path: path)
        configuration.prepareDatabase { db in
            // Readers keep a smaller page cache than SQLite's default (2 MB each): the system caches the file
            // anyway, and full caches on every connection would be a sixth of a small server's memory. 1 MB
            // holds what a full sync keeps coming back to (the note id index), so a pull seldom reads the same
            // page from the file twice (see BENCHMARKS.md, "Server round 2", item 20).
            if db.configuration.readonly {
                try db.execute(sql: "PRAGMA cache_size = -\(Self.readerCacheKiB)")
            } else {
                // A statement inside a transaction keeps the pages it changes in a statement journal, to undo
                // the statement alone if it fails; past 64 KiB SQLite moves that journal to a temporary file.
                // A pushed note's insert, with its triggers, passes that bound, so every note would write to a file
                // (see BENCHMARKS.md, "Server round 2", item 16). The writer keeps its temporary data in memory.
                try db.execute(sql: "PRAGMA temp_store = MEMORY")
                checkpointer.install(on: db)
            }
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        // GRDB opens a pool's writer with `synchronous = NORMAL`, which syncs the write-ahead log only at
        // checkpoints: a process crash loses nothing, but a power loss or a system crash could take back writes
        // already answered, and a device that was told its note is stored would never send it again. With
        // FULL every commit syncs the log before it returns (its cost: BENCHMARKS.md, "Server round 2", item 23).
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try self.init(database: pool, checkpointer: checkpointer, seedStarterData: seedStarterData, clock: clock)
    }

    /// A store on a database its caller opened: a `DatabasePool` on a file, as `init(path:)` opens it, or a
    /// `DatabaseQueue`, which may live in memory (`SQLiteStore.inMemory()`) for tests and previews. It is
    /// migrated forward in place; open it with `SQLiteStore.configuration` (foreign keys on).
    public convenience init(database: any DatabaseWriter, seedStarterData: Bool = true, clock: @escaping @Sendable () -> Date = Date.init) throws {
        try self.init(database: database, checkpointer: nil, seedStarterData: seedStarterData, clock: clock)
    }

    private init(database: any DatabaseWriter, checkpointer: LogCheckpointer?, seedStarterData: Bool, clock: @escaping @Sendable () -> Date) throws {
        self.clock = clock
        self.checkpointer = checkpointer
        pool = database
        try Schema.migrator.migrate(pool)
        try pool.write { db in
            try StarterDataset.insertStandardSources(db)
            if seedStarterData { try StarterDataset.seedIfEmpty(db) }
            if try Int.fetchOne(db, sql: CopyIdentity.markedQuery) ?? 0 > 0 {
                try db.execute(sql: CopyIdentity.renewSQL, arguments: [SyncCursor.newDatabaseID()])
                try db.execute(sql: CopyIdentity.unmarkSQL)
            }
        }
    }

    /// A store in memory, gone when released: for tests and previews.
    public static func inMemory(seedStarterData: Bool = true, clock: @escaping @Sendable () -> Date = Date.init) throws -> SQLiteStore {
        SQLiteSettings.apply()
        return try SQLiteStore(database: try DatabaseQueue(configuration: configuration), seedStarterData: seedStarterData, clock: clock)
    }

    /// How the store's connections are configured: foreign keys enforced, and a writer waits up to 5 s for
    /// another process's write to finish.
    public static var configuration: Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        return configuration
    }

    /// Closes every connection; later calls fail (used to prove readiness checks).
    public func close() throws {
        try pool.close()
        try checkpointer?.close()
    }

    /// Runs a write transaction, turning constraint violations the checks missed into 409s.
    package func write<T: Sendable>(_ updates: @Sendable @escaping (Database) throws -> T) async throws -> T {
        activity.begin(write: true)
        defer {
            activity.end(write: true)
            // After the commit (or rollback): anything derived from the data before it is now suspect.
            activity.bumpGeneration()
        }
        do {
            return try await pool.write(updates)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw OakError(.conflict, "The change conflicts with existing data: \(error.message ?? "constraint failed")")
        }
    }

    /// Runs a short read (a record, a page, a search) on the calling thread. Such a read takes microseconds,
    /// less than the two thread hops of an asynchronous read, which would be most of the cost of an uncached
    /// answer (see BENCHMARKS.md, "Server round 2", item 3).
    func read<T>(_ value: (Database) throws -> T) throws -> T {
        activity.begin(write: false)
        defer { activity.end(write: false) }
        return try pool.read(value)
    }

    /// Runs a long read (a sync page of a thousand changes, the export) on a reader's own queue, so it
    /// never holds one of the few threads that serve every other request.
    func longRead<T: Sendable>(_ value: @Sendable @escaping (Database) throws -> T) async throws -> T {
        activity.begin(write: false)
        defer { activity.end(write: false) }
        return try await pool.read(value)
    }

    /// What the connection pool is doing now, for metrics.
    public var poolStatus: PoolStatus {
        let (reads, writes) = activity.current
        // The database is the file and its write-ahead log: recent writes live in the WAL until a checkpoint.
        let size =
            path == ":memory:"
            ? nil
            : [path, path + "-wal"].reduce(0) { total, file in
                total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.intValue ?? 0)
            }
        return PoolStatus(readsInFlight: reads, writesInFlight: writes, maxReaders: Self.maxReaders, fileBytes: size)
    }

    static let maxReaders = 4
    static let readerCacheKiB = 1024

    /// A value that changes whenever the data may have changed: on every write through this store at once,
    /// and within a second for writes by other processes (older tools writing the file directly).
    /// Read it before reading the data that a cached answer is derived from.
    public func dataVersion() async throws -> DataVersion {
        if let known = knownDataVersion { return known }
        // The write count and the time before the read: a write during it leaves the head due (`observe`).
        let (seconds, writes) = (Self.secondsSinceStart, activity.writeCount)
        let head = try read { db in try Self.changeLogVersion(db) }
        activity.observe(head: head, at: seconds, generation: writes)
        return DataVersion(writes: writes, changeLogHead: head)
    }

    /// The version `dataVersion()` answers while the file is not due for a check (within a second of the last).
    public var knownDataVersion: DataVersion? {
        let state = activity.generationState(now: Self.secondsSinceStart, refreshAfter: 1)
        return state.due ? nil : DataVersion(writes: state.generation, changeLogHead: state.head)
    }

    private static var secondsSinceStart: Double {
        let elapsed: Duration = ContinuousClock.now - started
        return elapsed.inSeconds
    }

    private static let started: ContinuousClock.Instant = .now

    /// The current time at the database's precision (milliseconds).
    var now: Date { WireTime.milliseconds(clock()) }
}
