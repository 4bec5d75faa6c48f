import Foundation
import OakClient
import OakModels
import OakSync

/// What the app is built from: where it stores things, how it reaches a server, and the platform's
/// services. The iOS app uses `AppEnvironment.device(...)`; tests and previews build their own.
public struct AppEnvironment: Sendable {
    /// The database: a file in Application Support on a device, memory in tests and previews.
    public var storage: DeviceStorage
    /// The original app's Documents folder, looked at once for its notes to migrate; nil to skip.
    public var legacyDirectory: URL?
    /// The catalog imported on the first launch, so everything works offline from the start.
    public var starterCatalog: ExportFile?
    public var preferences: any AppPreferences
    public var credentials: any CredentialStore
    public var transport: any HTTPTransport
    /// The connectivity of a server's client (the platform's monitor unless tests switch it by hand).
    public var connectivity: @Sendable (OakClient) -> any Connectivity
    public var syncConfiguration: SyncConfiguration
    public var sleeper: any Sleeper
    public var dictation: any Dictation
    /// Stamps local writes and "last synced" labels.
    public var clock: @Sendable () -> Date
    /// Where notes' photos are kept on the device; nil: no photos (previews).
    public var photos: NotePhotos?

    public init(
        storage: DeviceStorage, legacyDirectory: URL? = nil, starterCatalog: ExportFile? = nil, preferences: any AppPreferences,
        credentials: any CredentialStore, transport: any HTTPTransport = makeDefaultTransport(),
        connectivity: @escaping @Sendable (OakClient) -> any Connectivity = { makeDefaultConnectivity(client: $0) },
        syncConfiguration: SyncConfiguration = SyncConfiguration(), sleeper: any Sleeper = TaskSleeper(),
        dictation: any Dictation = UnavailableDictation(), clock: @escaping @Sendable () -> Date = { Date() }, photos: NotePhotos? = nil
    ) {
        self.storage = storage
        self.legacyDirectory = legacyDirectory
        self.starterCatalog = starterCatalog
        self.preferences = preferences
        self.credentials = credentials
        self.transport = transport
        self.connectivity = connectivity
        self.syncConfiguration = syncConfiguration
        self.sleeper = sleeper
        self.dictation = dictation
        self.clock = clock
        self.photos = photos
    }

    /// The environment of the app on a phone: the database in Application Support, the original app's
    /// Documents folder for the one-time migration, its `Photos` folder for notes' photos, the bundled starter
    /// catalog, standard defaults and the Keychain.
    public static func device(dictation: any Dictation) throws -> AppEnvironment {
        let manager = FileManager.default
        let support = try manager.url(for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        let documents = try manager.url(for: .documentDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        return AppEnvironment(
            storage: .file(support.appendingPathComponent("oak.sqlite").path), legacyDirectory: documents,
            starterCatalog: try StarterCatalog.bundled(), preferences: DefaultsPreferences(), credentials: makeDefaultCredentialStore(),
            dictation: dictation, photos: NotePhotos(directory: documents.appendingPathComponent("Photos", isDirectory: true)))
    }
}

/// The project's own starter catalog for the app, in the export format: the starter dataset a new server
/// database is seeded with (`StarterDataset` in OakModels) and the standard sources, as that database exports them.
public enum StarterCatalog {
    /// Reads the bundled starter dataset.
    public static func bundled() throws -> ExportFile {
        let dataset = try StarterDataset.load()
        let sources = StarterDataset.standardSources
        let byID = Dictionary(uniqueKeysWithValues: sources.map { ($0.id, $0) })
        return ExportFile(
            metadata: nil, sources: sources.map(ExportSource.init),
            species: dataset.species.map { ExportSpecies(species: $0, data: [], sources: byID) })
    }
}
