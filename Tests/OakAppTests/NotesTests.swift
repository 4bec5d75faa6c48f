import Foundation
import OakApp
import OakModels
import OakStore
import OakSync
import OakTestSupport
import Testing

@Suite("Notes list and editor")
@MainActor
struct NotesTests {
    @Test("notes are grouped by subgenus and searched by name or common name")
    func groupedAndSearched() async throws {
        let test = try TestApp()
        await test.app.launch()
        let notes = test.app.device.notes
        try await notes.create(scientificName: "alba", fields: NoteFields(commonNames: "White oak"))
        try await notes.create(scientificName: "rubra", fields: NoteFields(commonNames: "Northern red oak"))
        try await notes.create(scientificName: "suber", fields: NoteFields(bark: "Corky"))
        let list = test.app.notesList
        try await eventually("three notes") { list.rows.count == 3 }
        #expect(list.groups.map(\.title) == ["Subgenus Cerris", "Subgenus Quercus"])
        #expect(list.groups[1].rows.map(\.title) == ["White oak", "Northern red oak"])
        #expect(list.groups[1].rows[0].subtitle == "Quercus alba")
        #expect(list.groups[0].rows[0].title == "Quercus suber")
        list.searchText = "red"
        #expect(list.rows.map(\.species) == ["rubra"])
        list.searchText = "quercus sub"
        #expect(list.rows.map(\.species) == ["suber"])
    }

    @Test("notes from every source are listed, each named by its source, and open in the editor to be changed")
    func everySourceListedAndEditable() async throws {
        let test = try TestApp()
        await test.app.launch()
        let notes = test.app.device.notes
        let book = try #require(try await test.app.store.sources().first { $0.id != Source.personalObservationID })
        try await notes.create(scientificName: "alba", fields: NoteFields(commonNames: "White oak"))
        let fromBook = try await notes.create(scientificName: "alba", sourceId: book.id, fields: NoteFields(leaf: "Deeply lobed"))
        let list = test.app.notesList
        try await eventually("both notes of alba") { list.rows.count == 2 }
        #expect(list.rows.map(\.id).last == fromBook.id, "your own note first, then the source's")
        #expect(list.rows[0].subtitle == "Quercus alba")
        #expect(list.rows[1].subtitle == "from \(book.name)")
        let editor = test.app.noteEditor(fromBook.id)
        await editor.load()
        #expect(editor.text(.leaf) == "Deeply lobed")
        editor.set(.leaf, to: "Deeply lobed, seven lobes")
        await editor.flush()
        #expect(try await notes.note(id: fromBook.id)?.fields.leaf == "Deeply lobed, seven lobes")
        #expect(try await notes.note(id: fromBook.id)?.sourceId == book.id)
    }

    @Test("swipe to delete removes the row at once while the delete waits to sync, and undo brings it back with its fields")
    func deleteWithUndo() async throws {
        let test = try TestApp()
        await test.app.launch()
        let note = try await test.app.device.notes.create(scientificName: "alba", fields: NoteFields(leaf: "Rounded lobes"))
        let list = test.app.notesList
        try await eventually("the note is listed") { list.rows.count == 1 }
        await list.delete(note.id)
        try await eventually("the row is gone") { list.rows.isEmpty }
        #expect(try await test.app.store.pendingChangeCount() == 1, "the delete waits for the next sync")
        #expect(list.recentlyDeleted?.id == note.id)
        #expect(try await test.app.device.notes.note(id: note.id) == nil)
        await list.undoDelete()
        try await eventually("the row is back") { list.rows.first?.state == .waitingToUpload }
        #expect(list.recentlyDeleted == nil)
        let restored = try #require(try await test.app.device.notes.notes().first)
        #expect(restored.fields.leaf == "Rounded lobes")
    }

    @Test("a delete that fails says why, and the alert goes away once read")
    func failedDeleteAlertDismisses() async throws {
        let test = try TestApp()
        await test.app.launch()
        let list = test.app.notesList
        await list.delete(UUID())
        let error = try #require(list.lastError)
        #expect(error.hasPrefix("Could not delete the note"))
        list.dismissError()
        #expect(list.lastError == nil)
    }

    @Test("a deleted note that reached the server is gone after sync; undo then creates it again")
    func deleteSyncedThenUndo() async throws {
        try await withServer { server in
            let test = try TestApp(server: server)
            await test.app.launch()
            let note = try await test.app.device.notes.create(scientificName: "alba", fields: NoteFields(acorn: "Shallow cup"))
            try await eventually("synced") { test.app.notesList.rows.first?.state == .synced }
            await test.app.notesList.delete(note.id)
            await test.app.sync.refresh()
            try await eventually("gone from the list") { test.app.notesList.rows.isEmpty }
            #expect(try await server.store.notes(species: "alba", sourceId: Source.personalObservationID).isEmpty)
            await test.app.notesList.undoDelete()
            await test.app.sync.refresh()
            try await eventually("synced again") { test.app.notesList.rows.first?.state == .synced }
            #expect(try await server.store.notes(species: "alba", sourceId: Source.personalObservationID).first?.fields.acorn == "Shallow cup")
        }
    }

    @Test("a note the server refuses shows failed with the reason")
    func failedRowShowsReason() async throws {
        try await withServer { server in
            let test = try TestApp(server: server)
            await test.app.launch()
            try await test.app.device.notes.create(scientificName: "alba", fields: NoteFields(fieldNotes: String(repeating: "x", count: 20_001)))
            await test.app.sync.refresh()
            try await eventually("the row failed") {
                if case .failed(let reason) = test.app.notesList.rows.first?.state { return reason.contains("must be 0 to 20000 characters long") }
                return false
            }
        }
    }

    @Test("the editor saves every change at once: the list shows it before any sync")
    func editorAutosaves() async throws {
        let test = try TestApp()
        await test.app.launch()
        let note = try await test.app.device.notes.create(scientificName: "alba", fields: NoteFields())
        let editor = test.app.noteEditor(note.id)
        await editor.load()
        #expect(editor.title == "Quercus alba")
        editor.set(.commonNames, to: "W")
        editor.set(.commonNames, to: "White oak")
        editor.set(.bark, to: "Pale, scaly")
        await editor.flush()
        try await eventually("the list shows the new title") { test.app.notesList.rows.first?.title == "White oak" }
        let stored = try #require(try await test.app.device.notes.note(id: note.id))
        #expect(stored.fields.commonNames == "White oak")
        #expect(stored.fields.bark == "Pale, scaly")
        #expect(stored.syncStatus == .pendingUpload)
        editor.set(.bark, to: "")
        await editor.flush()
        #expect(try await test.app.device.notes.note(id: note.id)?.fields.bark == nil)
    }

    @Test("an editor that has not read its note yet saves nothing typed into it")
    func unloadedEditorSavesNothing() async throws {
        let test = try TestApp()
        await test.app.launch()
        let note = try await test.app.device.notes.create(scientificName: "alba", fields: NoteFields(leaf: "Lobed", bark: "Scaly"))
        let editor = test.app.noteEditor(note.id)
        editor.set(.leaf, to: "x")
        await editor.flush()
        let stored = try #require(try await test.app.device.notes.note(id: note.id))
        #expect(stored.fields == NoteFields(leaf: "Lobed", bark: "Scaly"))
        await editor.load()
        #expect(editor.text(.leaf) == "Lobed")
        #expect(editor.text(.bark) == "Scaly")
    }

    @Test("dictation writes what it hears after the field's text, and saves it")
    func dictationIntoField() async throws {
        let (test, note, editor) = try await TestApp.withOpenEditor(
            dictation: ScriptedDictation(phrases: ["acorns", "in", "clusters"]), fields: NoteFields(fieldNotes: "Seen on the ridge."))
        await editor.startDictation(into: .fieldNotes)
        await editor.stopDictation()
        await editor.flush()
        #expect(editor.text(.fieldNotes) == "Seen on the ridge. acorns in clusters")
        #expect(editor.dictatingField == nil)
        #expect(try await test.app.device.notes.note(id: note.id)?.fields.fieldNotes == "Seen on the ridge. acorns in clusters")
    }

    @Test("dictation that fails says why in words, never an error code; cancel puts the field back as it was")
    func dictationFailsAndCancels() async throws {
        struct RecognizerFault: Error {}
        for (failure, expected) in [
            (DictationError.nothingHeard as any Error, DictationError.nothingHeard.errorDescription!),
            (DictationError.unavailable, DictationError.unavailable.errorDescription!),
            (RecognizerFault(), "Dictation stopped unexpectedly. Try again, or type the note."),
        ] {
            let (_, _, editor) = try await TestApp.withOpenEditor(
                dictation: ScriptedDictation(phrases: [], failure: failure), fields: NoteFields(leaf: "Lobed"))
            await editor.startDictation(into: .leaf)
            await editor.stopDictation()
            #expect(editor.lastError == expected)
            #expect(!(editor.lastError ?? "").contains("RecognizerFault"))
        }

        let (test, note, editor) = try await TestApp.withOpenEditor(
            dictation: ScriptedDictation(phrases: ["acorns", "in", "clusters"]), fields: NoteFields(fieldNotes: "Seen on the ridge."))
        await editor.startDictation(into: .fieldNotes)
        await editor.cancelDictation()
        await editor.flush()
        #expect(editor.text(.fieldNotes) == "Seen on the ridge.")
        #expect(editor.dictatingField == nil)
        #expect(try await test.app.device.notes.note(id: note.id)?.fields.fieldNotes == "Seen on the ridge.")
    }

    @Test("dictation without permission says so and changes nothing")
    func dictationRefused() async throws {
        let (_, _, editor) = try await TestApp.withOpenEditor(
            dictation: ScriptedDictation(phrases: ["never"], authorized: false), fields: NoteFields(leaf: "Lobed"))
        await editor.startDictation(into: .leaf)
        #expect(editor.lastError?.contains("permission") == true)
        #expect(editor.text(.leaf) == "Lobed")
    }
}
