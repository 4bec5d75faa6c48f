import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Logging
import OakModels
import OakServer
import OakStore
import OakStoreKit
import OakStorePostgres
import OakStoreSQLite
import OakTestBasics
import OakTestSupport
import Testing

/// A fresh database of its own, on the backend the suites run on (`TestBackend.current`), with the app built on it.
struct TestEnvironment {
    static let ownerKey = "test-owner-key-0123456789"
    let directory: URL
    let backend: TestBackend
    let store: any ServedStore
    /// The database file, or the PostgreSQL database's URL.
    let database: String

    let clock: TestClock

    /// A store on `backend`; `path` opens an existing SQLite file (and so means SQLite).
    init(backend: TestBackend = .current, seed: Bool = true, clock: TestClock = TestClock(), path: String? = nil) async throws {
        directory = temporaryDirectory("oak-tests")
        self.clock = clock
        if let path {
            self.backend = .sqlite
            store = try SQLiteStore(path: path, seedStarterData: seed, clock: { clock.now })
            database = path
        } else {
            self.backend = backend
            (store, database) = try await temporaryStore(backend, seed: seed, clock: { clock.now })
        }
    }

    /// A store opened on a database again, as a server started again on it (a restored backup).
    init(restored snapshot: OperatorBackup, clock: TestClock) async throws {
        directory = temporaryDirectory("oak-tests")
        self.clock = clock
        backend = snapshot.backend
        database = snapshot.database
        store = try await snapshot.restore(clock: { clock.now })
    }

    /// Takes a backup as the operator would (see `OperatorBackup`).
    func backup() async throws -> OperatorBackup {
        try await OperatorBackup.take(of: store, database: database)
    }

    /// The SQLite store, for what only it does (backups, its file); fails the test on another backend.
    var sqlite: SQLiteStore {
        get throws { try #require(store as? SQLiteStore, "this test needs the SQLite store") }
    }

    /// Closes the store's connections: later queries fail.
    func closeStore() throws {
        try OperatorBackup.close(store)
    }

    /// Rate limiting is off unless a test turns it on.
    var configuration: ServerConfiguration {
        .forTests(ownerKey: Self.ownerKey, directory: directory)
    }

    /// `configuration` with reads limited to `readsPerSecond` per client (the other limits their defaults).
    func configuration(readsPerSecond: Int) -> ServerConfiguration {
        var configuration = configuration
        configuration.rateLimits = RateLimits(readsPerSecond: readsPerSecond)
        return configuration
    }

    /// Runs `body` against the app, in process (`.router`) or through a real socket (`.live`).
    func test<Value: Sendable>(
        _ setup: TestingSetup = .router, configuration: ServerConfiguration? = nil, rateLimiter: RateLimiter? = nil,
        logger: Logger? = nil, _ body: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let app = buildApplication(
            configuration: configuration ?? self.configuration, store: store, rateLimiter: rateLimiter, logger: logger)
        return try await app.test(setup) { client in try await body(client) }
    }

    /// Writes the database directly, as another program would (`?` placeholders, text values).
    func execute(_ sql: String, _ arguments: [String] = []) async throws {
        switch backend {
        case .sqlite:
            let queue = try DatabaseQueue(path: database)
            try await queue.write { db in try db.execute(sql: sql, arguments: StatementArguments(arguments)) }
        case .postgres:
            try await postgresExecute(url: database, sql, arguments)
        }
    }

    /// Reads the database directly, to check what a request left behind (`?` placeholders, text values).
    func count(_ sql: String, _ arguments: [String] = []) async throws -> Int {
        switch backend {
        case .sqlite:
            let queue = try DatabaseQueue(path: database)
            return try await queue.read { db in try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0 }
        case .postgres:
            return try await postgresCount(url: database, sql, arguments)
        }
    }
}

extension TestClientProtocol {
    /// Sends a request; writes carry the owner key unless `key` says otherwise.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ uri: String, json: String? = nil, key: String? = TestEnvironment.ownerKey,
        headers: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = headers
        if let key { headers[.authorization] = "Bearer \(key)" }
        if json != nil, headers[.contentType] == nil { headers[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
    }
}

extension TestResponse {
    /// The body as a JSON object.
    func object() throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(buffer: body), options: [.fragmentsAllowed])
        return try #require(value as? [String: Any], "expected a JSON object, got \(String(buffer: body))")
    }

    /// The body as a JSON array of objects.
    func array() throws -> [[String: Any]] {
        let value = try JSONSerialization.jsonObject(with: Data(buffer: body))
        return try #require(value as? [[String: Any]], "expected a JSON array, got \(String(buffer: body))")
    }

    /// The `data` array of a paginated list.
    func data() throws -> [[String: Any]] {
        try #require(try object()["data"] as? [[String: Any]])
    }

    /// The error envelope's code, message and details.
    func error() throws -> (code: String, message: String, details: [String: Any]) {
        let error = try #require(try object()["error"] as? [String: Any], "no error envelope in \(String(buffer: body))")
        return (error["code"] as? String ?? "", error["message"] as? String ?? "", error["details"] as? [String: Any] ?? [:])
    }

    /// The fields named in `details.errors`.
    func invalidFields() throws -> [String] {
        let errors = try error().details["errors"] as? [[String: Any]] ?? []
        return errors.compactMap { $0["field"] as? String }
    }
}

/// Names of the items of a list, by key.
func names(_ items: [[String: Any]], _ key: String = "scientific_name") -> [String] {
    items.compactMap { $0[key] as? String }
}

/// Timestamps as the wire carries them.
func wire(_ date: Date) -> String { WireTime.format(date) }
