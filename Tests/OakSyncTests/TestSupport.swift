import Foundation
import Hummingbird
import HummingbirdTesting
import OakClient
import OakModels
import OakServer
import OakStore
import OakSync
import Testing

/// A real server on a loopback port, on a fresh database file.
struct LiveServer: Sendable {
    static let ownerKey = "sync-test-owner-key-0123456789"
    let store: SQLiteStore
    let baseURL: URL

    /// Runs `body` while the server listens.
    static func run<Value: Sendable>(_ body: @Sendable (LiveServer) async throws -> Value) async throws -> Value {
        let directory = temporaryDirectory("oak-server")
        let store = try SQLiteStore(path: directory.appendingPathComponent("server.db").path)
        // Rate limiting off: three busy devices share one loopback address; the faulty transport injects 429s itself.
        let configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, ownerKey: ownerKey, logLevel: .critical, rateLimits: nil,
            backups: BackupSettings(directory: directory.appendingPathComponent("backups").path, daily: false))
        return try await buildApplication(configuration: configuration, store: store).test(.live) { client in
            let port = try #require(client.port)
            return try await body(LiveServer(store: store, baseURL: URL(string: "http://127.0.0.1:\(port)")!))
        }
    }

    /// A client of this server through `transport`.
    func client(transport: any HTTPTransport = makeDefaultTransport(), key: String? = ownerKey) -> OakClient {
        OakClient(configuration: OakClientConfiguration(baseURL: baseURL, apiKey: key, timeout: .seconds(10), transport: transport))
    }
}

/// A new empty directory under the temporary directory.
func temporaryDirectory(_ prefix: String) -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

/// A clock for user writes shared by every device of a test: real time, but strictly increasing,
/// so the order of writes is the order of their timestamps.
final class WriteClock: @unchecked Sendable {
    private let lock = NSLock()
    private var last = Date.distantPast

    func now() -> Date {
        lock.withLock {
            last = max(WireTime.milliseconds(Date()), last.addingTimeInterval(0.001))
            return last
        }
    }
}

/// Connectivity the test switches by hand.
final class ManualConnectivity: Connectivity, @unchecked Sendable {
    private let lock = NSLock()
    private var online: Bool
    private var continuations: [AsyncStream<Bool>.Continuation] = []

    init(online: Bool = true) {
        self.online = online
    }

    var isOnline: Bool { lock.withLock { online } }

    func changes() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        lock.withLock { continuations.append(continuation) }
        return stream
    }

    func set(online: Bool) {
        let targets = lock.withLock {
            self.online = online
            return continuations
        }
        for continuation in targets { continuation.yield(online) }
    }
}

/// Sleeps a thousandth of what is asked (a 1 s Retry-After becomes 1 ms), so retries stay fast.
struct ScaledSleeper: Sleeper {
    func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration / 1000)
    }
}

/// The engine settings for tests: few, tiny retries.
let testSyncConfiguration = SyncConfiguration(
    pushBatchSize: 20, pullPageSize: 50, retry: RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(2), maxDelay: .milliseconds(20)))

/// One device: its database file, repository, engine, network and connectivity.
struct Device: Sendable {
    let path: String
    let repository: NotesRepository
    let engine: SyncEngine
    let network: FaultyTransport
    let connectivity: ManualConnectivity

    /// A device on a new database file, or on `path` (as an app relaunched).
    init(
        server: LiveServer, clock: WriteClock, path: String? = nil, network: FaultyTransport = FaultyTransport(seed: 1),
        configuration: SyncConfiguration = testSyncConfiguration
    ) throws {
        self.path = path ?? temporaryDirectory("oak-device").appendingPathComponent("device.db").path
        repository = NotesRepository(store: try LocalStore(path: self.path), clock: { clock.now() })
        self.network = network
        connectivity = ManualConnectivity()
        engine = SyncEngine(
            repository: repository, client: server.client(transport: network), connectivity: connectivity,
            configuration: configuration, sleeper: ScaledSleeper())
    }

    /// Cuts or restores the network and tells the engine.
    func set(online: Bool) {
        network.online = online
        connectivity.set(online: online)
    }

}
