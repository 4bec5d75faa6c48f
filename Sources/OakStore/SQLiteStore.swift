import Foundation
import GRDB
import OakModels

/// The embedded SQLite store: WAL mode, a pool of readers and one writer (GRDB `DatabasePool`).
public final class SQLiteStore: Sendable {
    let pool: DatabasePool
    let exportCache = ExportCache()
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
        configuration.maximumReaderCount = 4
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
        do {
            return try await pool.write(updates)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw OakError(.conflict, "The change conflicts with existing data: \(error.message ?? "constraint failed")")
        }
    }

    func read<T: Sendable>(_ value: @Sendable @escaping (Database) throws -> T) async throws -> T {
        try await pool.read(value)
    }

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
