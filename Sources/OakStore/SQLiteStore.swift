import Foundation
import GRDB
import OakModels

/// The embedded SQLite store: WAL mode, a pool of readers and one writer (GRDB `DatabasePool`).
public final class SQLiteStore: Sendable {
    let pool: DatabasePool
    let exportCache = ExportCache()
    let activity = PoolActivity()
    /// The server's clock: note timestamps, push clamping. Tests inject a controlled one.
    let clock: @Sendable () -> Date

    /// The database file's path.
    public var path: String { pool.path }

    /// Opens (creating if needed) a database file and migrates it forward in place.
    /// - Parameter seedStarterData: give a database without species the bundled starter dataset.
    public init(path: String, seedStarterData: Bool = true, clock: @escaping @Sendable () -> Date = Date.init) throws {
        self.clock = clock
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        configuration.maximumReaderCount = Self.maxReaders
        pool = try DatabasePool(path: path, configuration: configuration)
        try Schema.migrator.migrate(pool)
        try pool.write { db in
            try StarterDataset.insertStandardSources(db)
            if seedStarterData { try StarterDataset.seedIfEmpty(db) }
        }
    }

    /// Closes every connection; later calls fail (used to prove readiness checks).
    public func close() throws {
        try pool.close()
    }

    /// Runs a write transaction, turning constraint violations the checks missed into 409s.
    func write<T: Sendable>(_ updates: @Sendable @escaping (Database) throws -> T) async throws -> T {
        activity.begin(write: true)
        defer { activity.end(write: true) }
        do {
            return try await pool.write(updates)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw OakError(.conflict, "The change conflicts with existing data: \(error.message ?? "constraint failed")")
        }
    }

    func read<T: Sendable>(_ value: @Sendable @escaping (Database) throws -> T) async throws -> T {
        activity.begin(write: false)
        defer { activity.end(write: false) }
        return try await pool.read(value)
    }

    /// What the connection pool is doing now, for metrics.
    public var poolStatus: PoolStatus {
        let (reads, writes) = activity.current
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        return PoolStatus(readsInFlight: reads, writesInFlight: writes, maxReaders: Self.maxReaders, fileBytes: size)
    }

    static let maxReaders = 4

    /// The current time at the database's precision (milliseconds).
    var now: Date { WireTime.milliseconds(clock()) }
}

/// Caches the encoded export until the change log moves.
actor ExportCache {
    private var version: Int64 = -1
    private var snapshot: ExportSnapshot?

    func cached(at version: Int64) -> ExportSnapshot? {
        version == self.version ? snapshot : nil
    }

    func store(_ snapshot: ExportSnapshot, at version: Int64) {
        if version >= self.version {
            self.version = version
            self.snapshot = snapshot
        }
    }
}

/// Gauges of the connection pool.
public struct PoolStatus: Sendable {
    public var readsInFlight: Int
    public var writesInFlight: Int
    public var maxReaders: Int
    public var fileBytes: Int
}

/// Counts reads and writes in flight.
final class PoolActivity: @unchecked Sendable {
    private let lock = NSLock()
    private var reads = 0
    private var writes = 0

    func begin(write: Bool) { lock.withLock { if write { writes += 1 } else { reads += 1 } } }
    func end(write: Bool) { lock.withLock { if write { writes -= 1 } else { reads -= 1 } } }
    var current: (reads: Int, writes: Int) { lock.withLock { (reads, writes) } }
}
