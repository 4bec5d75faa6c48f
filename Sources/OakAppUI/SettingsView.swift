#if canImport(SwiftUI) && canImport(UIKit)
import OakApp
import SwiftUI
import UniformTypeIdentifiers

/// The server and key, test connection, sign out, and the export of your notes.
struct SettingsView: View {
    @Bindable var model: SettingsModel
    let sync: SyncStatusModel
    let app: AppModel
    @State private var unsyncedToConfirm: Int?
    @State private var export: NotesExport?
    @State private var choosingPreviousFiles = false
    @State private var importProblem: String?

    var body: some View {
        Form {
            Section {
                TextField("https://oaks.example.org", text: $model.serverURLText)
                    .keyboardType(.URL)
                    .textInputAutocapitalization(.never)
                    .autocorrectionDisabled()
                SecureField("API key", text: $model.apiKeyText)
            } header: {
                Text("Server")
            } footer: {
                Text("The key is kept in the Keychain. Without a server, notes stay on this iPhone.")
            }
            Section {
                Button {
                    Task { await model.testConnection() }
                } label: {
                    HStack {
                        Text("Test connection")
                        if model.isTesting {
                            Spacer()
                            ProgressView()
                        }
                    }
                }
                if let connection = model.connection {
                    ConnectionResultView(result: connection)
                }
                Button("Save") { model.save() }
                if let error = model.errorMessage {
                    Text(error).foregroundStyle(.red)
                }
            }
            Section("Sync") {
                SyncStatusView(model: sync)
                Button("Sync now") { Task { await sync.refresh() } }
            }
            Section {
                Button("Import notes from the previous app…") { choosingPreviousFiles = true }
                Button("Export my notes") {
                    Task { export = (try? await model.exportNotes()).map(NotesExport.init) }
                }
                if model.isSignedIn {
                    Button("Sign out", role: .destructive) {
                        Task {
                            if case .needsConfirmation(let unsynced) = await model.signOut() { unsyncedToConfirm = unsynced }
                        }
                    }
                }
            }
        }
        .fileImporter(isPresented: $choosingPreviousFiles, allowedContentTypes: [.json], allowsMultipleSelection: true) { result in
            guard case .success(let urls) = result else { return }
            let files = Self.read(urls)
            Task { importProblem = await app.importFromPreviousApp(files: files) }
        }
        .alert(
            "Import from the previous app",
            isPresented: .presenting(while: { importProblem != nil }, dismiss: { importProblem = nil })
        ) {
            Button("OK", role: .cancel) {}
        } message: {
            Text(importProblem ?? "")
        }
        .navigationTitle("Settings")
        .confirmationDialog(
            "\(unsyncedToConfirm ?? 0) changes have not reached the server",
            isPresented: .presenting(while: { unsyncedToConfirm != nil }, dismiss: { unsyncedToConfirm = nil }),
            titleVisibility: .visible
        ) {
            Button("Sign out and delete them", role: .destructive) {
                Task {
                    _ = await model.signOut(discardingUnsynced: true)
                    unsyncedToConfirm = nil
                }
            }
            Button("Keep them and stay signed in", role: .cancel) { unsyncedToConfirm = nil }
        }
        .fileExporter(
            isPresented: .presenting(while: { export != nil }, dismiss: { export = nil }), document: export, contentType: .json,
            defaultFilename: "oak-notes.json"
        ) { _ in export = nil }
    }
}

extension SettingsView {
    /// The picked files by name; the Files app lends them for the time of the read only.
    static func read(_ urls: [URL]) -> [String: Data] {
        var files: [String: Data] = [:]
        for url in urls {
            let lent = url.startAccessingSecurityScopedResource()
            defer { if lent { url.stopAccessingSecurityScopedResource() } }
            if let data = try? Data(contentsOf: url) { files[url.lastPathComponent] = data }
        }
        return files
    }
}

/// What "test connection" found, in words.
struct ConnectionResultView: View {
    let result: SettingsModel.ConnectionResult

    var body: some View {
        switch result {
        case .connected(let name, let abilities):
            Label("Connected as \(name) (\(abilities.joined(separator: ", ")))", systemImage: "checkmark.circle").foregroundStyle(.green)
        case .readOnly:
            Label("The server answers; without a key notes cannot sync.", systemImage: "info.circle").foregroundStyle(.orange)
        case .failed(let reason):
            Label(reason, systemImage: "xmark.octagon").foregroundStyle(.red)
        }
    }
}

/// The exported notes as a JSON document for the file exporter.
struct NotesExport: FileDocument {
    static var readableContentTypes: [UTType] { [.json] }
    let data: Data

    init(_ data: Data) {
        self.data = data
    }

    init(configuration: ReadConfiguration) throws {
        data = configuration.file.regularFileContents ?? Data()
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        FileWrapper(regularFileWithContents: data)
    }
}
#endif
