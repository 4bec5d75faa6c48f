import Foundation
import OakClient
import OakModels

/// Where a device keeps its database.
public enum DeviceStorage: Sendable {
    /// A database file (created if missing).
    case file(String)
    /// Memory only: tests and previews.
    case inMemory
}

/// The server a device syncs with, and the key its writes carry.
public struct DeviceServer: Sendable {
    public var baseURL: URL
    /// The API key; nil means read-only access.
    public var apiKey: String?
    /// The HTTP transport (tests inject faults here).
    public var transport: any HTTPTransport
    public var timeout: Duration

    public init(baseURL: URL, apiKey: String?, transport: any HTTPTransport = makeDefaultTransport(), timeout: Duration = .seconds(30)) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.transport = transport
        self.timeout = timeout
    }

    /// A server whose key is read from `credentials` (the Keychain on Apple platforms).
    public init(
        baseURL: URL, credentials: any CredentialStore = makeDefaultCredentialStore(), transport: any HTTPTransport = makeDefaultTransport(),
        timeout: Duration = .seconds(30)
    ) throws {
        self.init(baseURL: baseURL, apiKey: try credentials.loadKey(), transport: transport, timeout: timeout)
    }

    /// A client of this server.
    public var client: OakClient {
        OakClient(configuration: OakClientConfiguration(baseURL: baseURL, apiKey: apiKey, timeout: timeout, transport: transport))
    }
}

/// Everything one device needs, wired together the same way for the app, the CLI and the tests:
/// the local store, the notes repository and the offline catalog, and, when a server is set, its client
/// and the sync engine with connectivity.
public final class OakDevice: Sendable {
    public let store: LocalStore
    public let notes: NotesRepository
    public let catalog: OfflineCatalog
    /// The server's client; nil when no server is set (the device works offline only).
    public let client: OakClient?
    /// The sync engine; nil when no server is set.
    public let engine: SyncEngine?

    /// Opens the store and wires the repositories; with a server, its client and engine too.
    /// `connectivity` defaults to the platform's monitor; `clock` stamps local writes; `makeID` names new notes.
    public convenience init(
        storage: DeviceStorage, server: DeviceServer? = nil, connectivity: (any Connectivity)? = nil,
        configuration: SyncConfiguration = SyncConfiguration(), sleeper: any Sleeper = TaskSleeper(),
        clock: @escaping @Sendable () -> Date = { Date() }, makeID: @escaping @Sendable () -> UUID = { UUID() }
    ) throws {
        let store: LocalStore
        switch storage {
        case .file(let path):
            try FileManager.default.createDirectory(
                at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            store = try LocalStore(path: path)
        case .inMemory:
            store = try LocalStore.inMemory()
        }
        self.init(
            store: store, server: server, connectivity: connectivity, configuration: configuration, sleeper: sleeper, clock: clock, makeID: makeID)
    }

    /// Wires a device around an open store (an app that changes servers keeps its store).
    public init(
        store: LocalStore, server: DeviceServer?, connectivity: (any Connectivity)? = nil,
        configuration: SyncConfiguration = SyncConfiguration(), sleeper: any Sleeper = TaskSleeper(),
        clock: @escaping @Sendable () -> Date = { Date() }, makeID: @escaping @Sendable () -> UUID = { UUID() }
    ) {
        self.store = store
        notes = NotesRepository(store: store, clock: clock, makeID: makeID)
        catalog = OfflineCatalog(store: store)
        guard let server else {
            client = nil
            engine = nil
            return
        }
        let client = server.client
        self.client = client
        engine = SyncEngine(
            repository: notes, client: client, connectivity: connectivity ?? makeDefaultConnectivity(client: client),
            configuration: configuration, sleeper: sleeper)
    }
}
