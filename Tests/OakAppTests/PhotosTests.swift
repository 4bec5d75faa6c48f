import Foundation
import OakApp
import OakModels
import OakSync
import OakTestBasics
import OakTestSupport
import Testing

@Suite("Photos on the device")
@MainActor
struct PhotosTests {
    /// Bytes standing for a JPEG from the camera or the library (the app stores what it is given).
    static func jpeg(_ label: String) -> Data { Data("\u{FF}\u{D8}\u{FF} \(label)".utf8) }

    @Test("photos added to a note are kept on the device, shown in the editor and counted in the list with a thumbnail")
    func photosShownInEditorAndList() async throws {
        let (test, note, editor) = try await TestApp.withOpenEditor(fields: NoteFields(leaf: "Lobed"))
        #expect(editor.canTakePhotos)
        editor.addPhoto(Self.jpeg("bark"))
        editor.addPhoto(Self.jpeg("acorns"))
        #expect(editor.photos.count == 2)
        #expect(try editor.photos.map { try Data(contentsOf: $0) }.sorted { $0.count < $1.count } == [Self.jpeg("bark"), Self.jpeg("acorns")])
        let list = test.app.notesList
        try await eventually("the row counts the photos") { list.rows.first?.photoCount == 2 }
        #expect(list.rows.first?.thumbnail == editor.photos.first)
        editor.removePhoto(editor.photos[0])
        #expect(editor.photos.count == 1)
        try await eventually("the row follows") { list.rows.first?.photoCount == 1 }
        // Another editor of the note, as after closing and opening it again, finds the photo.
        let reopened = test.app.noteEditor(note.id)
        await reopened.load()
        #expect(reopened.photos == editor.photos)
    }

    @Test("a deleted note's photos stay while it can be brought back, come back with it, and go when the undo offer ends")
    func photosFollowDeleteAndUndo() async throws {
        let (test, note, editor) = try await TestApp.withOpenEditor(fields: NoteFields(leaf: "Lobed"))
        editor.addPhoto(Self.jpeg("leaf"))
        let photo = try #require(editor.photos.first)
        let list = test.app.notesList
        try await eventually("listed") { list.rows.count == 1 }
        await list.delete(note.id)
        #expect(FileManager.default.fileExists(atPath: photo.path), "kept while Undo is offered")
        await list.undoDelete()
        try await eventually("back") { list.rows.first?.photoCount == 1 }
        await list.delete(note.id)
        list.dismissUndo()
        #expect(!FileManager.default.fileExists(atPath: photo.path), "gone with the undo offer")
    }

    @Test("the original app's photos (photoFileNames in its Photos folder) come with its notes, also to a note matched by species")
    func originalAppPhotosMigrate() async throws {
        let folder = temporaryDirectory("oak-legacy-photos")
        let photosFolder = folder.appendingPathComponent("Photos")
        try FileManager.default.createDirectory(at: photosFolder, withIntermediateDirectories: true)
        let albaID = UUID(uuidString: "6A1E9F10-0000-4000-8000-0000000000B1")!
        let rubraID = UUID(uuidString: "6A1E9F10-0000-4000-8000-0000000000B2")!
        // Named as the original app names them: note id, underscore, photo id.
        let albaPhotos = ["\(albaID.uuidString)_\(UUID().uuidString).jpg", "\(albaID.uuidString)_\(UUID().uuidString).jpg"]
        let rubraPhoto = "\(rubraID.uuidString)_\(UUID().uuidString).jpg"
        for name in albaPhotos + [rubraPhoto] { try Self.jpeg(name).write(to: photosFolder.appendingPathComponent(name)) }
        let time = Date(timeIntervalSince1970: 1_746_093_600)
        try OriginalAppNote.encoder.encode([
            OriginalAppNote(
                id: albaID, taxonomy: .init(subgenus: "Quercus", section: "Quercus", species: "alba"), fields: [.leaf: "Lobed"], sourceId: 3,
                photoFileNames: albaPhotos, createdAt: time, updatedAt: time),
            OriginalAppNote(
                id: rubraID, taxonomy: .init(subgenus: "Quercus", section: "Lobatae", species: "rubra"), fields: [.bark: "Ridged"], sourceId: 3,
                photoFileNames: [rubraPhoto], createdAt: time, updatedAt: time),
        ]).write(to: folder.appendingPathComponent(LegacyAppImport.notesFileName))

        let test = try TestApp(legacyDirectory: folder)
        // This device already has a note of its own on rubra: the old one is matched with it, not imported.
        let own = try await test.app.device.notes.create(scientificName: "rubra", fields: NoteFields(form: "Tall"))
        await test.app.launch()
        #expect(test.app.legacyImport?.importedNotes == 1)
        #expect(test.app.legacyImport?.skippedNotes == 1)
        let alba = test.app.noteEditor(albaID)
        await alba.load()
        #expect(alba.photos.map(\.lastPathComponent).sorted() == albaPhotos.sorted())
        let rubra = test.app.noteEditor(own.id)
        await rubra.load()
        #expect(rubra.photos.count == 1)
        #expect(try rubra.photos.map { try Data(contentsOf: $0) } == [Self.jpeg(rubraPhoto)])
    }
}
