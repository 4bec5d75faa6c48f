import Foundation
import Hummingbird
import HummingbirdTesting
import OakClient
import OakModels
import OakServer
import OakStore
import OakSync
import OakTestBasics
import OakTestSupport
import Testing

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

    /// A device on a new database file, or on `path` (as an app relaunched), whose clock runs `skew` seconds off.
    init(
        server: LiveServer, clock: WriteClock, path: String? = nil, network: FaultyTransport = FaultyTransport(seed: 1),
        configuration: SyncConfiguration = testSyncConfiguration, skew: TimeInterval = 0
    ) throws {
        self.path = path ?? temporaryDirectory("oak-device").appendingPathComponent("device.db").path
        self.network = network
        connectivity = ManualConnectivity()
        let device = try OakDevice(
            storage: .file(self.path),
            server: DeviceServer(baseURL: server.baseURL, apiKey: LiveServer.ownerKey, transport: network, timeout: .seconds(10)),
            connectivity: connectivity, configuration: configuration, sleeper: ScaledSleeper(), clock: { clock.now().addingTimeInterval(skew) })
        repository = device.notes
        engine = try #require(device.engine)
    }

    /// Cuts or restores the network and tells the engine.
    func set(online: Bool) {
        network.online = online
        connectivity.set(online: online)
    }
}
