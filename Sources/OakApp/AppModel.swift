import Foundation
import OakModels
import OakSync
import Observation

/// The app: its device (store, repositories, sync engine), the screens' models and the navigation.
/// `launch()` runs once at start; the platform calls `enteredForeground()` and `backgroundRefresh()`.
@Observable @MainActor
public final class AppModel {
    public let environment: AppEnvironment
    public let store: LocalStore
    /// The wiring of the store to the server; rebuilt when the settings change the server.
    public private(set) var device: OakDevice
    public let navigation = Navigation()
    public let sync: SyncStatusModel
    public let browser: SpeciesBrowserModel
    public let notesList: NotesListModel
    public let sources: SourcesModel
    public let settings: SettingsModel
    /// What the last launch's migration of the original app's files did, if it ran.
    public private(set) var legacyImport: LegacyImportSummary?
    /// A problem at launch the user should see (the rest of the app still works).
    public private(set) var launchProblem: String?
    private var launched = false

    /// Opens the store and builds the screens' models; nothing runs until `launch()`.
    public init(environment: AppEnvironment) throws {
        self.environment = environment
        let store = try OakDevice(storage: environment.storage).store
        self.store = store
        let device = Self.makeDevice(store: store, environment: environment)
        self.device = device
        sync = SyncStatusModel(clock: environment.clock, sleeper: environment.sleeper)
        browser = SpeciesBrowserModel(store: device.store)
        notesList = NotesListModel(store: device.store, photos: environment.photos)
        sources = SourcesModel(store: device.store)
        settings = SettingsModel(preferences: environment.preferences, credentials: environment.credentials, transport: environment.transport)
        notesList.repository = device.notes
        sources.repository = device.catalog
        settings.app = self
        sync.follow(device.engine, store: store)
    }

    /// First-launch work, then live updates and sync: imports the starter catalog into an empty store,
    /// migrates the original app's files once, starts the screens' observations and the sync engine.
    public func launch() async {
        do {
            if let starter = environment.starterCatalog { try await store.importStarterCatalog(starter) }
        } catch {
            launchProblem = "Could not prepare the local data: \(error)"
        }
        await moveLegacyFiles()
        browser.start()
        notesList.start()
        sources.start()
        launched = true
        await device.engine?.start()
    }

    /// Moves the original app's files into the store once. When they cannot be moved the user is told why, once;
    /// the files are left as they are and the move is tried again at the next launch.
    private func moveLegacyFiles() async {
        let preferences = environment.preferences
        guard let directory = environment.legacyDirectory, !preferences.legacyFilesImported, LegacyAppImport.hasLegacyFiles(in: directory)
        else { return }
        do {
            let summary = try await LegacyAppImport(store: store).run(directory: directory)
            legacyImport = summary
            preferences.setLegacyFilesImported()
            for (noteID, fileNames) in summary.photoFileNames { try environment.photos?.adopt(fileNames, for: noteID) }
        } catch {
            guard !preferences.legacyImportFailureShown else { return }
            launchProblem =
                "The notes of the previous version could not be moved: \(error). Its files are kept as they are, and the app tries again at each launch."
            preferences.setLegacyImportFailureShown()
        }
    }

    /// Imports the original app's files as the user picked them in the Files app (an app installed beside the old
    /// one cannot read its folder), by file name: `species_notes.json` (or the one file picked, whatever its name)
    /// and `sources.json` when picked. On success the summary shows as after a migration at launch
    /// (`legacyImport`); otherwise why, in words, and nothing is imported.
    public func importFromPreviousApp(files: [String: Data]) async -> String? {
        let sources = files[LegacyAppImport.sourcesFileName]
        guard let notes = files[LegacyAppImport.notesFileName] ?? (files.count == 1 && sources == nil ? files.values.first : nil) else {
            return "Choose the previous app's \(LegacyAppImport.notesFileName) (and \(LegacyAppImport.sourcesFileName) if you added sources)."
        }
        do {
            let summary = try await LegacyAppImport(store: store).run(notes: notes, sources: sources)
            legacyImport = summary
            return nil
        } catch is DecodingError {
            return "These are not the previous app's files: choose species_notes.json (and sources.json) from its folder."
        } catch {
            return "The notes could not be imported: \(error)"
        }
    }

    /// Call when the app comes to the foreground: syncs.
    public func enteredForeground() async {
        await device.engine?.appWillEnterForeground()
    }

    /// The user has read the launch problem: its alert goes away.
    public func dismissLaunchProblem() {
        launchProblem = nil
    }

    /// The user has read what the migration of the original app's files did: its alert goes away.
    public func dismissLegacyImport() {
        legacyImport = nil
    }

    /// One sync for a background refresh; returns whether it succeeded.
    public func backgroundRefresh() async -> Bool {
        guard let engine = device.engine else { return false }
        return await engine.sync().state == .idle
    }

    /// The model of a species' page.
    public func speciesDetail(_ name: String) -> SpeciesDetailModel {
        SpeciesDetailModel(name: name, store: store)
    }

    /// The model of the editor of a note.
    public func noteEditor(_ id: UUID) -> NoteEditorModel {
        let editor = NoteEditorModel(noteID: id, repository: device.notes, dictation: environment.dictation, photos: environment.photos)
        editor.photosChanged = { [weak notesList] in notesList?.photosChanged() }
        return editor
    }

    /// The model of the new-note sheet, for a species when one is known.
    public func newNote(species: String? = nil) -> NewNoteModel {
        NewNoteModel(store: store, notes: device.notes, catalog: device.catalog, species: species)
    }

    /// Rewires the device to the server the settings name (or to none), keeping the store, and restarts sync.
    func rebuildDevice() {
        let previous = device.engine
        device = Self.makeDevice(store: store, environment: environment)
        notesList.repository = device.notes
        sources.repository = device.catalog
        sync.follow(device.engine, store: store)
        let engine = launched ? device.engine : nil
        Task {
            await previous?.stop()
            await engine?.start()
        }
    }

    /// The device on `store` for the server the preferences name, with its key from the credential store.
    private static func makeDevice(store: LocalStore, environment: AppEnvironment) -> OakDevice {
        let server = environment.preferences.serverURL.map { url in
            DeviceServer(baseURL: url, apiKey: (try? environment.credentials.loadKey()) ?? nil, transport: environment.transport)
        }
        return OakDevice(
            store: store, server: server, connectivity: server.map { environment.connectivity($0.client) },
            configuration: environment.syncConfiguration, sleeper: environment.sleeper, clock: environment.clock)
    }
}
