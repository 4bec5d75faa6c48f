import Foundation
import OakApp
import OakModels
import OakStore
import OakSync
import OakTestSupport
import Testing

@Suite("Sync and settings")
@MainActor
struct SyncAndSettingsTests {
    @Test("a note written offline waits to upload; when the network returns it syncs by itself and the server has it")
    func createOfflineThenConnect() async throws {
        try await withServer { server in
            let test = try TestApp(server: server, online: false)
            await test.app.launch()
            try await eventually("offline") { test.app.sync.indicator == .offline(pending: 0) }
            let form = test.app.newNote(species: "alba")
            await form.load()
            let id = try #require(await form.create())
            let editor = test.app.noteEditor(id)
            await editor.load()
            editor.set(.leaf, to: "Written on the trail")
            await editor.flush()
            try await eventually("the list shows it waiting") { test.app.notesList.rows.first?.state == .waitingToUpload }
            try await eventually("the indicator counts it") { test.app.sync.indicator == .offline(pending: 1) }
            #expect(test.app.sync.label == "Offline · 1 waiting")
            #expect(try await server.store.notes(species: "alba", sourceId: Source.personalObservationID).isEmpty)
            test.set(online: true)
            try await eventually("synced") { test.app.notesList.rows.first?.state == .synced }
            try await eventually("the indicator is idle") { test.app.sync.indicator == .idle }
            #expect(test.app.sync.label.hasPrefix("Synced"))
            let stored = try #require(try await server.store.notes(species: "alba", sourceId: Source.personalObservationID).first)
            #expect(stored.id == id)
            #expect(stored.fields.leaf == "Written on the trail")
        }
    }

    @Test("the same note edited on two devices: both lists end with the later edit (last write wins)")
    func lastWriteWinsOnTwoDevices() async throws {
        try await withServer { server in
            let (phone, tablet, note) = try await TestApp.phoneAndTablet(on: server)
            phone.set(online: false)
            tablet.set(online: false)
            let phoneEditor = phone.app.noteEditor(note.id)
            await phoneEditor.load()
            phoneEditor.set(.bark, to: "phone's edit")
            await phoneEditor.flush()
            let tabletEditor = tablet.app.noteEditor(note.id)
            await tabletEditor.load()
            tabletEditor.set(.bark, to: "tablet's later edit")
            await tabletEditor.flush()
            tablet.set(online: true)
            await tablet.app.sync.refresh()
            phone.set(online: true)
            await phone.app.sync.refresh()
            await tablet.app.sync.refresh()
            for device in [phone, tablet] {
                try await eventually("the later edit wins") {
                    (try? await device.app.device.notes.note(id: note.id))?.fields.bark == "tablet's later edit"
                        && device.app.notesList.rows.first?.state == .synced
                }
            }
            #expect(try await server.store.note(id: note.id).fields.bark == "tablet's later edit")
        }
    }

    @Test("an open editor shows an edit pulled from another device, keeps what is typed in it, and puts back no old text")
    func openEditorFollowsPulledEdit() async throws {
        try await withServer { server in
            let (phone, tablet, note) = try await TestApp.phoneAndTablet(on: server)
            let phoneEditor = phone.app.noteEditor(note.id)
            await phoneEditor.load()
            #expect(phoneEditor.text(.bark) == "first")
            // The tablet changes the bark while the phone's editor stays open.
            let tabletEditor = tablet.app.noteEditor(note.id)
            await tabletEditor.load()
            tabletEditor.set(.bark, to: "from the tablet")
            await tabletEditor.flush()
            await tablet.app.sync.refresh()
            await phone.app.sync.refresh()
            try await eventually("the phone's open editor shows the pulled bark") { phoneEditor.text(.bark) == "from the tablet" }
            // Typing in another field saves that field alone: the bark is not put back to what the editor first read.
            phoneEditor.set(.leaf, to: "Lobed, typed on the phone")
            await phoneEditor.flush()
            #expect(phoneEditor.text(.bark) == "from the tablet")
            await phone.app.sync.refresh()
            await tablet.app.sync.refresh()
            for device in [phone, tablet] {
                try await eventually("both edits everywhere") {
                    let fields = (try? await device.app.device.notes.note(id: note.id))?.fields
                    return fields?.bark == "from the tablet" && fields?.leaf == "Lobed, typed on the phone"
                }
            }
            let stored = try await server.store.note(id: note.id).fields
            #expect(stored.bark == "from the tablet")
            #expect(stored.leaf == "Lobed, typed on the phone")
        }
    }

    @Test("the sync label moves on as time passes: \"Synced just now\" becomes \"Synced 5 min ago\" while the indicator shows")
    func syncLabelFollowsTime() async throws {
        try await withServer { server in
            let clock = WriteClock()
            let test = try TestApp(server: server, clock: clock)
            await test.app.launch()
            await test.app.sync.refresh()
            try await eventually("synced") { test.app.sync.indicator == .idle }
            #expect(test.app.sync.label == "Synced just now")
            clock.advance(by: 5 * 60)
            // The indicator's view keeps the time while it shows; without it the label stays as it was drawn.
            let showing = Task { await test.app.sync.keepTime() }
            defer { showing.cancel() }
            try await eventually("the label says how long ago") { test.app.sync.label == "Synced 5 min ago" }
        }
    }

    @Test("a failed sync shows the error with retry, and retry succeeds once the server answers")
    func errorWithRetry() async throws {
        try await withServer { server in
            let test = try TestApp(server: server)
            test.credentials.deleteKeyQuietly()
            test.app.settings.apiKeyText = "wrong-key-000000000000"
            #expect(test.app.settings.save())
            await test.app.launch()
            try await test.app.device.notes.create(scientificName: "alba", fields: NoteFields(leaf: "x"))
            await test.app.sync.refresh()
            try await eventually("the error shows") { test.app.sync.canRetry }
            test.app.settings.apiKeyText = LiveServer.ownerKey
            #expect(test.app.settings.save())
            await test.app.sync.retry()
            try await eventually("synced after retry") { test.app.sync.indicator == .idle }
        }
    }

    @Test("test connection: accepted key, refused key, unreachable server, and an invalid URL")
    func testConnection() async throws {
        try await withServer { server in
            let test = try TestApp()
            let settings = test.app.settings
            settings.serverURLText = server.baseURL.absoluteString
            settings.apiKeyText = LiveServer.ownerKey
            await settings.testConnection()
            guard case .connected(_, let abilities)? = settings.connection else {
                Issue.record("expected connected, got \(String(describing: settings.connection))")
                return
            }
            #expect(abilities.contains("admin"))
            settings.apiKeyText = "not-a-key-1234567890"
            await settings.testConnection()
            #expect(settings.connection == .failed("The server refused the API key."))
            settings.serverURLText = "http://127.0.0.1:9"
            await settings.testConnection()
            #expect(settings.connection == .failed("The server cannot be reached."))
            settings.serverURLText = "oaks.example.org"
            #expect(settings.save() == false)
            #expect(settings.errorMessage?.contains("https://") == true)
            #expect(test.preferences.serverURL == nil)
        }
    }

    @Test("saving the server in settings starts syncing; the key goes to the credential store")
    func saveConnects() async throws {
        try await withServer { server in
            let test = try TestApp()
            await test.app.launch()
            #expect(test.app.sync.indicator == .notConfigured)
            try await test.app.device.notes.create(scientificName: "rubra", fields: NoteFields(form: "Tall"))
            test.app.settings.serverURLText = server.baseURL.absoluteString
            test.app.settings.apiKeyText = LiveServer.ownerKey
            #expect(test.app.settings.save())
            #expect(try test.credentials.loadKey() == LiveServer.ownerKey)
            try await eventually("the note written before reaches the server") {
                (try? await server.store.notes(species: "rubra", sourceId: Source.personalObservationID).first?.fields.form) == "Tall"
            }
        }
    }

    @Test("sign out keeps unsynced notes unless the user confirms deleting them")
    func signOutKeepsUnsynced() async throws {
        try await withServer { server in
            let test = try TestApp(server: server, online: false)
            await test.app.launch()
            try await test.app.device.notes.create(scientificName: "alba", fields: NoteFields(leaf: "Not yet sent"))
            #expect(await test.app.settings.signOut() == .needsConfirmation(unsynced: 1))
            #expect(test.preferences.serverURL != nil)
            #expect(try await test.app.device.notes.notes().count == 1)
            #expect(await test.app.settings.signOut(discardingUnsynced: true) == .signedOut)
            #expect(test.preferences.serverURL == nil)
            #expect(try test.credentials.loadKey() == nil)
            #expect(try await test.app.device.notes.notes().isEmpty)
            #expect(test.app.sync.indicator == .notConfigured)
        }
    }

    @Test("sign out with everything synced needs no confirmation")
    func signOutSynced() async throws {
        let test = try TestApp()
        await test.app.launch()
        #expect(await test.app.settings.signOut() == .signedOut)
    }

    @Test("export of local notes writes them as the notes API does")
    func exportNotes() async throws {
        let test = try TestApp()
        await test.app.launch()
        let note = try await test.app.device.notes.create(scientificName: "alba", fields: NoteFields(commonNames: "White oak", leaf: "Lobed"))
        let data = try await test.app.settings.exportNotes()
        let notes = try JSONDecoder().decode([Note].self, from: data)
        #expect(notes.map(\.id) == [note.id])
        #expect(notes[0].fields.leaf == "Lobed")
        #expect(notes[0].scientificName == "alba")
    }
}

extension MemoryCredentials {
    /// Drops the key.
    func deleteKeyQuietly() {
        try? deleteKey()
    }
}
