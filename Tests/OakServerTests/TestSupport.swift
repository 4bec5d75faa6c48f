import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Logging
import OakModels
import OakServer
import OakStore
import OakStoreSQLite
import OakTestSupport
import Testing

/// A fresh database file in its own temporary directory, with the app built on it.
struct TestEnvironment {
    static let ownerKey = "test-owner-key-0123456789"
    let directory: URL
    let store: SQLiteStore

    let clock: TestClock

    init(seed: Bool = true, clock: TestClock = TestClock(), path: String? = nil) throws {
        directory = temporaryDirectory("oak-tests")
        self.clock = clock
        store = try SQLiteStore(
            path: path ?? directory.appendingPathComponent("oak.db").path, seedStarterData: seed, clock: { clock.now })
    }

    /// Rate limiting is off unless a test turns it on.
    var configuration: ServerConfiguration {
        ServerConfiguration(
            host: "127.0.0.1", port: 0, ownerKey: Self.ownerKey, logLevel: .critical, rateLimits: nil,
            backups: BackupSettings(directory: directory.appendingPathComponent("backups").path, keep: 3, daily: false))
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

    /// Reads the database file directly, to check what a request left behind.
    func count(_ sql: String, _ arguments: StatementArguments = []) async throws -> Int {
        let queue = try DatabaseQueue(path: store.path)
        return try await queue.read { db in try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0 }
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
