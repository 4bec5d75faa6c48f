import Foundation
import OakModels
import OakStore
import OakStoreKit
import OakStorePostgres
import OakStoreSQLite
import OakTestBasics

/// A backup of a test database taken as its operator takes one, restored later as the operator restores it:
/// on SQLite the server's own backup (SQLite's online backup), copied over the database file; on PostgreSQL `pg_dump`,
/// loaded back with `pg_restore --clean --if-exists` (the README's commands), with the cluster's own tools.
public struct OperatorBackup: Sendable {
    public let backend: TestBackend
    /// The database file, or the PostgreSQL database's URL.
    public let database: String
    /// The backup file.
    public let file: String

    /// Takes a backup of `store`, whose database is `database`.
    public static func take(of store: any ServedStore, database: String) async throws -> OperatorBackup {
        if let sqlite = store as? SQLiteStore {
            let directory = temporaryDirectory("oak-backups").path
            let backup = try await sqlite.backup(into: directory, keep: 100)
            return OperatorBackup(backend: .sqlite, database: database, file: URL(fileURLWithPath: directory).appendingPathComponent(backup.filename).path)
        }
        let file = temporaryDirectory("oak-dumps").appendingPathComponent("oak.dump").path
        try await runPostgresTool("pg_dump", ["--format=custom", "--file=\(file)", database])
        return OperatorBackup(backend: .postgres, database: database, file: file)
    }

    /// Closes a store (a server stopped before its database is restored).
    public static func close(_ store: any ServedStore) throws {
        if let sqlite = store as? SQLiteStore { try sqlite.close() }
        if let postgres = store as? PostgresStore { postgres.close() }
    }

    /// Puts the backup back in place of the database, whose store must be closed, and opens a store on it, as
    /// a server started again on the restored database.
    public func restore(clock: @escaping @Sendable () -> Date = Date.init) async throws -> any ServedStore {
        switch backend {
        case .sqlite:
            // `cp backup oak.db`, as the README restores: the old file and its write-ahead log give way.
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
            try FileManager.default.copyItem(atPath: file, toPath: database)
            return try SQLiteStore(path: database, clock: clock)
        case .postgres:
            try await Self.runPostgresTool("pg_restore", ["--clean", "--if-exists", "--dbname=\(database)", file])
            return try await PostgresStore(url: database, pool: PostgresPoolSettings(maxConnections: 2), clock: clock)
        }
    }

    /// Runs one of the PostgreSQL cluster's tools (`OAK_TEST_PG_BINDIR`, set by `scripts/with-postgres`) and
    /// fails with what it printed unless it succeeds.
    private static func runPostgresTool(_ name: String, _ arguments: [String]) async throws {
        guard let directory = ProcessInfo.processInfo.environment["OAK_TEST_PG_BINDIR"], !directory.isEmpty else {
            throw OakError(.internalError, "OAK_TEST_PG_BINDIR is not set: run the tests through scripts/with-postgres")
        }
        let log = temporaryDirectory("oak-pg-tool").appendingPathComponent("\(name).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw OakError(.internalError, "cannot create \(log.path) for the output of \(name)")
        }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = try SpawnedProcess(
            executable: URL(fileURLWithPath: directory).appendingPathComponent(name), arguments: arguments,
            environment: ProcessInfo.processInfo.environment, output: handle.fileDescriptor, error: handle.fileDescriptor)
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        guard process.terminationStatus == 0 else {
            throw OakError(.internalError, "\(name) failed (\(process.terminationStatus)): \(String(decoding: try Data(contentsOf: log), as: UTF8.self))")
        }
    }
}
