import Foundation
import Logging
import OakModels
import OakStore
import OakStoreKit
import OakStorePostgres
import OakStoreSQLite
import OakTestBasics

/// The store backends tests run on. SQLite always; PostgreSQL when `OAK_TEST_DATABASE_URL` names a server
/// the tests may create databases on (`scripts/with-postgres` starts a private one and sets it).
public enum TestBackend: String, Sendable, CaseIterable, CustomStringConvertible {
    case sqlite, postgres

    /// The backend the HTTP-level suites run on: `OAK_TEST_STORE` (`sqlite`, the default, or `postgres`).
    public static var current: TestBackend {
        ProcessInfo.processInfo.environment["OAK_TEST_STORE"].flatMap(TestBackend.init(rawValue:)) ?? .sqlite
    }

    /// The PostgreSQL server of the tests, if any.
    public static var postgresURL: String? {
        ProcessInfo.processInfo.environment["OAK_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Every backend these tests can run on here.
    public static var available: [TestBackend] {
        postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]
    }

    public var description: String { rawValue }
}

/// A store on a fresh database of its own, opened as `oak serve` opens a new one: migrated, with the
/// standard sources and (unless `seed` is false) the starter dataset. For PostgreSQL, a new database on the
/// test server, whose URL is returned too, with a pool of `maxConnections` (few: every test runs at once).
public func temporaryStore(
    _ backend: TestBackend, seed: Bool = true, maxConnections: Int = 2, clock: @escaping @Sendable () -> Date = Date.init
) async throws -> (store: any ServedStore, databaseURL: String) {
    switch backend {
    case .sqlite:
        let path = temporaryDatabasePath("oak-store")
        return (try SQLiteStore(path: path, seedStarterData: seed, clock: clock), path)
    case .postgres:
        let url = try await temporaryPostgresDatabase()
        return (try await PostgresStore(url: url, seedStarterData: seed, pool: PostgresPoolSettings(maxConnections: maxConnections), clock: clock), url)
    }
}

/// A new, empty database on the PostgreSQL test server; its URL.
public func temporaryPostgresDatabase() async throws -> String {
    guard let server = TestBackend.postgresURL, var components = URLComponents(string: server) else {
        throw OakError(.internalError, "OAK_TEST_DATABASE_URL is not set: run the tests through scripts/with-postgres")
    }
    components.path = "/oak_test_\(UUID().uuidString.prefix(8).lowercased())"
    let url = components.string!
    try await PostgresStore.createDatabaseIfMissing(url: url, logger: Logger(label: "oak.tests", factory: { _ in SwiftLogNoOpLogHandler() }))
    return url
}

/// Runs a statement on a PostgreSQL database (a row written as another program wrote it); `?` placeholders
/// are bound in order, as SQLite binds them.
public func postgresExecute(url: String, _ sql: String, _ arguments: [String] = []) async throws {
    _ = try await postgresCount(url: url, sql, arguments)
}

/// The first column of the first row of a query on a PostgreSQL database, as an integer; `?` placeholders
/// are bound in order, as SQLite binds them.
public func postgresCount(url: String, _ sql: String, _ arguments: [String]) async throws -> Int {
    var index = 0
    let numbered = sql.map { character -> String in
        guard character == "?" else { return String(character) }
        index += 1
        return "$\(index)"
    }.joined()
    let configuration = try PostgresURL(url).clientConfiguration
    return try await PostgresStore.withClient(configuration, logger: Logger(label: "oak.tests", factory: { _ in SwiftLogNoOpLogHandler() })) {
        Int(try await $0.integer(numbered, arguments.map { .text($0) }) ?? 0)
    }
}
