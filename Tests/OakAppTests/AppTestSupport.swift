import Foundation
import OakApp
import OakClient
import OakModels
import OakSync
import OakTestBasics
import OakTestSupport
import Testing

/// Settings kept in memory.
final class MemoryPreferences: AppPreferences, @unchecked Sendable {
    private let lock = NSLock()
    private var url: URL?
    private var imported = false
    private var failureShown = false

    init(serverURL: URL? = nil) {
        url = serverURL
    }

    var serverURL: URL? { lock.withLock { url } }
    func setServerURL(_ url: URL?) { lock.withLock { self.url = url } }
    var legacyFilesImported: Bool { lock.withLock { imported } }
    func setLegacyFilesImported() { lock.withLock { imported = true } }
    var legacyImportFailureShown: Bool { lock.withLock { failureShown } }
    func setLegacyImportFailureShown() { lock.withLock { failureShown = true } }
}

/// An API key kept in memory.
final class MemoryCredentials: CredentialStore, @unchecked Sendable {
    private let lock = NSLock()
    private var key: String?

    init(key: String? = nil) {
        self.key = key
    }

    func loadKey() throws -> String? { lock.withLock { key } }
    func saveKey(_ key: String) throws { lock.withLock { self.key = key } }
    func deleteKey() throws { lock.withLock { key = nil } }
}

/// Dictation that hears what the test scripted: each phrase becomes a longer transcript, then it ends (with
/// `failure` when one is given, as a recognizer that gives up does).
final class ScriptedDictation: Dictation, @unchecked Sendable {
    let phrases: [String]
    let authorized: Bool
    let failure: (any Error)?

    init(phrases: [String], authorized: Bool = true, failure: (any Error)? = nil) {
        self.phrases = phrases
        self.authorized = authorized
        self.failure = failure
    }

    func requestAuthorization() async -> Bool { authorized }

    func transcripts() -> AsyncThrowingStream<String, any Error> {
        let (phrases, failure) = (phrases, failure)
        return AsyncThrowingStream { continuation in
            var heard: [String] = []
            for phrase in phrases {
                heard.append(phrase)
                continuation.yield(heard.joined(separator: " "))
            }
            continuation.finish(throwing: failure)
        }
    }

    func stop() async {}
}

/// One app as a test drives it: its model, network switch and settings.
@MainActor
struct TestApp {
    let app: AppModel
    let connectivity: ManualConnectivity
    let preferences: MemoryPreferences
    let credentials: MemoryCredentials

    /// An app on a new store (in memory unless `storage` says otherwise) with the bundled starter catalog,
    /// syncing with `server` when one is given.
    init(
        server: LiveServer? = nil, online: Bool = true, storage: DeviceStorage = .inMemory, legacyDirectory: URL? = nil,
        clock: WriteClock = WriteClock(), dictation: any Dictation = UnavailableDictation(), preferences: MemoryPreferences? = nil
    ) throws {
        let connectivity = ManualConnectivity(online: online)
        self.connectivity = connectivity
        let preferences = preferences ?? MemoryPreferences(serverURL: server?.baseURL)
        self.preferences = preferences
        credentials = MemoryCredentials(key: server == nil ? nil : LiveServer.ownerKey)
        let environment = AppEnvironment(
            storage: storage, legacyDirectory: legacyDirectory, starterCatalog: try StarterCatalog.bundled(), preferences: preferences,
            credentials: credentials, connectivity: { _ in connectivity },
            syncConfiguration: SyncConfiguration(
                retry: RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(2), maxDelay: .milliseconds(10)), debounce: .milliseconds(50)),
            sleeper: ScaledSleeper(), dictation: dictation, clock: { clock.now() },
            // Photos in the old app's Documents folder when there is one, as on a phone.
            photos: NotePhotos(directory: (legacyDirectory ?? temporaryDirectory("oak-photos")).appendingPathComponent("Photos")))
        app = try AppModel(environment: environment)
    }

    /// A launched app with a note on alba holding `fields`, and that note's editor, loaded.
    static func withOpenEditor(dictation: any Dictation = UnavailableDictation(), fields: NoteFields) async throws -> (
        test: TestApp, note: LocalNote, editor: NoteEditorModel
    ) {
        let test = try TestApp(dictation: dictation)
        await test.app.launch()
        let note = try await test.app.device.notes.create(scientificName: "alba", fields: fields)
        let editor = test.app.noteEditor(note.id)
        await editor.load()
        return (test, note, editor)
    }

    /// Two launched apps on one server and one write clock, sharing a note on alba (`bark` "first") made on the
    /// phone and synced to the tablet.
    static func phoneAndTablet(on server: LiveServer) async throws -> (phone: TestApp, tablet: TestApp, note: LocalNote) {
        let clock = WriteClock()
        let phone = try TestApp(server: server, clock: clock)
        let tablet = try TestApp(server: server, clock: clock)
        await phone.app.launch()
        await tablet.app.launch()
        let note = try await phone.app.device.notes.create(scientificName: "alba", fields: NoteFields(bark: "first"))
        await phone.app.sync.refresh()
        await tablet.app.sync.refresh()
        try await eventually("the tablet has the note") { tablet.app.notesList.rows.first?.id == note.id }
        return (phone, tablet, note)
    }

    /// Turns the network off or on, as the platform's monitor would report it.
    func set(online: Bool) {
        connectivity.set(online: online)
    }
}

/// Waits until `condition` holds (models update from the store's observations, a moment after a write).
@MainActor
func eventually(_ what: String, timeout: Duration = .seconds(15), _ condition: @MainActor () async -> Bool) async throws {
    guard try await OakTestBasics.eventually(within: timeout, every: .milliseconds(10), condition) else {
        Issue.record("timed out waiting for: \(what)")
        throw CancellationError()
    }
}

extension NotesListModel {
    /// Every row, across groups.
    var rows: [NoteRow] { groups.flatMap(\.rows) }
}

extension SpeciesBrowserModel {
    /// Every row's name, across groups.
    var names: [String] { groups.flatMap(\.rows).map(\.name) }
}

/// Runs `body` on the main actor (where the app's models live) while a live server listens.
func withServer(_ body: @escaping @MainActor @Sendable (LiveServer) async throws -> Void) async throws {
    try await LiveServer.run { server in try await body(server) }
}
