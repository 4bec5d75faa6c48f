import Foundation
import Hummingbird
import HummingbirdTesting
import OakClient
import OakModels
import OakServer
import OakStore
import OakStoreKit
import OakStoreSQLite
import OakSync
import OakTestBasics

/// A real server on a loopback port, on a fresh database of its own (`TestBackend.current` unless told).
public struct LiveServer: Sendable {
    public static let ownerKey = "sync-test-owner-key-0123456789"
    public let store: any ServedStore
    /// The database file, or the PostgreSQL database's URL.
    public let database: String
    public let baseURL: URL

    /// Runs `body` while the server listens, on a new database of `backend`, or on `existing` (a store and its
    /// database, as a server started again on a restored file).
    public static func run<Value: Sendable>(
        backend: TestBackend = .current, on existing: (store: any ServedStore, database: String)? = nil,
        _ body: @Sendable (LiveServer) async throws -> Value
    ) async throws -> Value {
        let directory = temporaryDirectory("oak-server")
        let (store, database): (any ServedStore, String)
        if let existing { (store, database) = existing } else { (store, database) = try await temporaryStore(backend) }
        // Rate limiting off: three busy devices share one loopback address; the faulty transport injects 429s itself.
        let configuration = ServerConfiguration.forTests(ownerKey: ownerKey, directory: directory)
        return try await buildApplication(configuration: configuration, store: store).test(.live) { client in
            guard let port = client.port else { throw LiveServerError.noPort }
            return try await body(LiveServer(store: store, database: database, baseURL: URL(string: "http://127.0.0.1:\(port)")!))
        }
    }

    /// A client of this server through `transport`.
    public func client(transport: any HTTPTransport = makeDefaultTransport(), key: String? = ownerKey) -> OakClient {
        OakClient(configuration: OakClientConfiguration(baseURL: baseURL, apiKey: key, timeout: .seconds(10), transport: transport))
    }
}

/// A clock for user writes shared by every device of a test: real time (moved forward by `advance(by:)`), but
/// strictly increasing, so the order of writes is the order of their timestamps.
public final class WriteClock: @unchecked Sendable {
    public init() {}

    private let lock = NSLock()
    private var last = Date.distantPast
    private var ahead: TimeInterval = 0

    public func now() -> Date {
        lock.withLock {
            last = max(WireTime.milliseconds(Date().addingTimeInterval(ahead)), last.addingTimeInterval(0.001))
            return last
        }
    }

    /// Moves the clock forward, as if `seconds` had passed.
    public func advance(by seconds: TimeInterval) {
        lock.withLock { ahead += seconds }
    }
}

/// Sleeps a thousandth of what is asked (a 1 s Retry-After becomes 1 ms), so retries stay fast.
public struct ScaledSleeper: Sleeper {
    public init() {}

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration / 1000)
    }
}

/// The live test server could not report its port.
enum LiveServerError: Error {
    case noPort
}

extension ServerConfiguration {
    /// A test server's configuration: loopback on a free port, quiet logs, no rate limits (a test turns them on),
    /// no daily backup, and backups (the newest 3) under `directory`.
    public static func forTests(ownerKey: String, directory: URL) -> ServerConfiguration {
        ServerConfiguration(
            host: "127.0.0.1", port: 0, ownerKey: ownerKey, logLevel: .critical, rateLimits: nil,
            backups: BackupSettings(directory: directory.appendingPathComponent("backups").path, keep: 3, daily: false))
    }
}
