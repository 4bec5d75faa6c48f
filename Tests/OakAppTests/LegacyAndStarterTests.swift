import Foundation
import OakApp
import OakModels
import OakStore
import OakStoreSQLite
import OakSync
import OakTestSupport
import Testing

@Suite("First launch: starter catalog and the original app's files")
@MainActor
struct LegacyAndStarterTests {
    /// Notes in the original app's format (our own sample text): a known species, a hybrid, a species the
    /// catalog lacks, one on a source the user added, and one with empty fields.
    static let oldNotes = """
        [
          {"id": "6A1E9F10-0000-4000-8000-000000000001", "taxonomy": {"subgenus": "Quercus", "section": "Quercus", "species": "alba"},
           "fields": {"common_names": "White oak", "leaf": "Rounded lobes", "range_habitat": "Dry ridges", "bark": ""},
           "photoFileNames": [], "sourceId": 3, "createdAt": "2025-05-01T10:00:00Z", "updatedAt": "2025-05-02T11:30:00Z"},
          {"id": "6A1E9F10-0000-4000-8000-000000000002", "taxonomy": {"subgenus": "Quercus", "section": "Quercus", "species": "× bebbiana"},
           "fields": {"field_notes": "Intermediate leaves"}, "photoFileNames": [], "createdAt": "2025-05-03T09:00:00Z", "updatedAt": "2025-05-03T09:00:00Z"},
          {"id": "6A1E9F10-0000-4000-8000-000000000003", "taxonomy": {"subgenus": "Quercus", "section": "Lobatae", "subsection": "Phellos", "species": "creekensis"},
           "fields": {"acorn": "Tiny, striped"}, "photoFileNames": [], "sourceId": 3, "createdAt": "2025-06-01T08:00:00Z", "updatedAt": "2025-06-01T08:00:00Z"},
          {"id": "6A1E9F10-0000-4000-8000-000000000004", "taxonomy": {"subgenus": "Quercus", "section": "Lobatae", "species": "rubra"},
           "fields": {"form": "Broad crown"}, "photoFileNames": [], "sourceId": 7, "createdAt": "2025-06-02T08:00:00Z", "updatedAt": "2025-06-02T08:00:00Z"}
        ]
        """

    static let oldSources = """
        [
          {"id": 3, "source_type": "Personal Observation", "name": "Oak Compendium"},
          {"id": 7, "source_type": "Book", "name": "My Trail Guide", "author": "R. Hiker", "year": 2021, "license": "All rights reserved"}
        ]
        """

    private func legacyFolder() throws -> URL {
        let folder = temporaryDirectory("oak-legacy")
        try Data(Self.oldNotes.utf8).write(to: folder.appendingPathComponent("species_notes.json"))
        try Data(Self.oldSources.utf8).write(to: folder.appendingPathComponent("sources.json"))
        return folder
    }

    @Test("the original app's notes and sources move into the store on first launch, queued for upload, the old files untouched")
    func migratesOldFiles() async throws {
        let folder = try legacyFolder()
        let before = try [
            Data(contentsOf: folder.appendingPathComponent("species_notes.json")), Data(contentsOf: folder.appendingPathComponent("sources.json")),
        ]
        let test = try TestApp(legacyDirectory: folder)
        await test.app.launch()
        let summary = try #require(test.app.legacyImport)
        #expect(summary.importedNotes == 4)
        #expect(summary.createdSources == 1)
        #expect(summary.createdSpecies == 1)
        #expect(summary.problems.isEmpty)
        let notes = test.app.device.notes
        let alba = try #require(try await notes.note(id: UUID(uuidString: "6A1E9F10-0000-4000-8000-000000000001")!))
        #expect(alba.scientificName == "alba")
        #expect(alba.fields == NoteFields(commonNames: "White oak", leaf: "Rounded lobes", rangeHabitat: "Dry ridges"))
        #expect(alba.updatedAt == ISO8601DateFormatter().date(from: "2025-05-02T11:30:00Z"))
        #expect(alba.syncStatus == .pendingUpload)
        #expect(try await notes.note(id: UUID(uuidString: "6A1E9F10-0000-4000-8000-000000000002")!)?.scientificName == "× bebbiana")
        let catalog = try await test.app.store.catalog()
        let creek = try #require(catalog.species(named: "creekensis"))
        #expect(creek.subsection == "Phellos")
        #expect(catalog.syncState(ofSpecies: "creekensis") == .pendingUpload)
        let guide = try #require(catalog.sources.first { $0.name == "My Trail Guide" })
        #expect(guide.id < 0)
        #expect(guide.author == "R. Hiker")
        let rubra = try #require(try await notes.note(id: UUID(uuidString: "6A1E9F10-0000-4000-8000-000000000004")!))
        #expect(rubra.sourceId == guide.id)
        let after = try [
            Data(contentsOf: folder.appendingPathComponent("species_notes.json")), Data(contentsOf: folder.appendingPathComponent("sources.json")),
        ]
        #expect(after == before)
        #expect(test.preferences.legacyFilesImported)
    }

    @Test("running the migration twice adds nothing")
    func migrationIsIdempotent() async throws {
        let folder = try legacyFolder()
        let store = try LocalStore.inMemory()
        try await store.importStarterCatalog(try StarterCatalog.bundled())
        let first = try await LegacyAppImport(store: store).run(directory: folder)
        let second = try await LegacyAppImport(store: store).run(directory: folder)
        #expect(first.importedNotes == 4)
        #expect(second.importedNotes == 0)
        #expect(second.skippedNotes == 4)
        #expect(second.createdSources == 0)
        #expect(second.createdSpecies == 0)
        #expect(try await store.pendingChangeCount() == 6)
    }

    @Test("migrated notes reach the server with their own ids, and the new source and species with them")
    func migratedNotesSync() async throws {
        try await withServer { server in
            let test = try TestApp(server: server, legacyDirectory: try legacyFolder())
            await test.app.launch()
            // Idle with the three rows can come before the first push has run: wait for nothing to be pending.
            try await eventually("everything synced") {
                guard test.app.sync.indicator == .idle, test.app.notesList.rows.count == 3 else { return false }
                return (try? await test.app.store.pendingChangeCount()) == 0
            }
            #expect(try await server.store.note(id: UUID(uuidString: "6A1E9F10-0000-4000-8000-000000000003")!).scientificName == "creekensis")
            let guide = try #require(try await server.store.listSources().first { $0.name == "My Trail Guide" })
            #expect(try await server.store.note(id: UUID(uuidString: "6A1E9F10-0000-4000-8000-000000000004")!).sourceId == guide.id)
        }
    }

    @Test("a bad old notes file is reported and nothing is imported")
    func badOldFile() async throws {
        let folder = temporaryDirectory("oak-legacy-bad")
        try Data("[{\"id\": 12}]".utf8).write(to: folder.appendingPathComponent("species_notes.json"))
        let test = try TestApp(legacyDirectory: folder)
        await test.app.launch()
        #expect(test.app.launchProblem != nil)
        #expect(try await test.app.store.pendingChangeCount() == 0)
        #expect(try await test.app.store.catalog().species.count == 96)
    }

    @Test("the bundled starter catalog is the project's own starter dataset in the export format")
    func bundledCatalogIsOurStarterExport() async throws {
        let path = temporaryDirectory("oak-starter").appendingPathComponent("fresh.db").path
        let store = try SQLiteStore(path: path)
        let fresh = try JSONDecoder().decode(ExportFile.self, from: Data(try await store.export().body.readableBytesView))
        let bundled = try StarterCatalog.bundled()
        #expect(bundled.species == fresh.species)
        #expect(bundled.sources == fresh.sources)
    }
}
