import Foundation
import OakApp
import OakModels
import OakStore
import OakStoreKit
import OakStoreSQLite
import OakSync
import OakTestBasics
import OakTestSupport
import Testing

@Suite("First launch: starter catalog and the original app's files")
@MainActor
struct LegacyAndStarterTests {
    /// Notes as the original app writes them (`OriginalAppNote`, encoded with its storage's settings; our own
    /// sample text): a known species, a hybrid, a species the catalog lacks, and one on a source the user added.
    static func oldNotes() throws -> Data {
        func day(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
        return try OriginalAppNote.encoder.encode([
            OriginalAppNote(
                id: UUID(uuidString: "6A1E9F10-0000-4000-8000-000000000001")!, taxonomy: .init(subgenus: "Quercus", section: "Quercus", species: "alba"),
                fields: [.commonNames: "White oak", .leaf: "Rounded lobes", .rangeHabitat: "Dry ridges", .bark: ""], sourceId: 3,
                createdAt: day("2025-05-01T10:00:00Z"), updatedAt: day("2025-05-02T11:30:00Z")),
            OriginalAppNote(
                id: UUID(uuidString: "6A1E9F10-0000-4000-8000-000000000002")!, taxonomy: .init(subgenus: "Quercus", section: "Quercus", species: "× bebbiana"),
                fields: [.fieldNotes: "Intermediate leaves"], sourceId: nil, createdAt: day("2025-05-03T09:00:00Z"), updatedAt: day("2025-05-03T09:00:00Z")),
            OriginalAppNote(
                id: UUID(uuidString: "6A1E9F10-0000-4000-8000-000000000003")!,
                taxonomy: .init(subgenus: "Quercus", section: "Lobatae", subsection: "Phellos", species: "creekensis"), fields: [.acorn: "Tiny, striped"],
                sourceId: 3, createdAt: day("2025-06-01T08:00:00Z"), updatedAt: day("2025-06-01T08:00:00Z")),
            OriginalAppNote(
                id: UUID(uuidString: "6A1E9F10-0000-4000-8000-000000000004")!, taxonomy: .init(subgenus: "Quercus", section: "Lobatae", species: "rubra"),
                fields: [.form: "Broad crown"], sourceId: 7, createdAt: day("2025-06-02T08:00:00Z"), updatedAt: day("2025-06-02T08:00:00Z")),
        ])
    }

    static let oldSources = """
        [
          {"id": 3, "source_type": "Personal Observation", "name": "Oak Compendium"},
          {"id": 7, "source_type": "Book", "name": "My Trail Guide", "author": "R. Hiker", "year": 2021, "license": "All rights reserved"}
        ]
        """

    private func legacyFolder() throws -> URL {
        let folder = temporaryDirectory("oak-legacy")
        try Self.oldNotes().write(to: folder.appendingPathComponent("species_notes.json"))
        try Data(Self.oldSources.utf8).write(to: folder.appendingPathComponent("sources.json"))
        return folder
    }

    @Test(
        "the original app's notes file, as its model and JSONEncoder write it (fields as an object), and its sources move into the store on first launch, queued for upload, the old files untouched; the alert saying so goes away once read"
    )
    func migratesOldFiles() async throws {
        let folder = try legacyFolder()
        let before = try [
            Data(contentsOf: folder.appendingPathComponent("species_notes.json")), Data(contentsOf: folder.appendingPathComponent("sources.json")),
        ]
        let test = try TestApp(legacyDirectory: folder)
        await test.app.launch()
        let summary = try #require(test.app.legacyImport)
        test.app.dismissLegacyImport()
        #expect(test.app.legacyImport == nil, "the alert saying what moved goes away once read")
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
            // Idle with the four rows (three of your own, one from the trail guide) can come before the first push
            // has run: wait for nothing to be pending.
            try await eventually("everything synced") {
                guard test.app.sync.indicator == .idle, test.app.notesList.rows.count == 4 else { return false }
                return (try? await test.app.store.pendingChangeCount()) == 0
            }
            #expect(try await server.store.note(id: UUID(uuidString: "6A1E9F10-0000-4000-8000-000000000003")!).scientificName == "creekensis")
            let guide = try #require(try await server.store.listSources().first { $0.name == "My Trail Guide" })
            #expect(try await server.store.note(id: UUID(uuidString: "6A1E9F10-0000-4000-8000-000000000004")!).sourceId == guide.id)
        }
    }

    /// Writes `notes` as `species_notes.json` with the original app's storage settings (`JSONEncoder`, ISO 8601
    /// dates, pretty-printed with sorted keys) in a new folder; returns the folder and the bytes.
    private func originalAppFolder(_ notes: [SynthesizedCodingNote]) throws -> (folder: URL, data: Data) {
        let data = try OriginalAppNote.encoder.encode(notes)
        let folder = temporaryDirectory("oak-legacy-encoded")
        try data.write(to: folder.appendingPathComponent(LegacyAppImport.notesFileName))
        return (folder, data)
    }

    @Test("a notes file whose fields the synthesized Encodable wrote from a [FieldKey: String] dictionary (an alternating array) imports")
    func importsFieldsWrittenAsAlternatingArray() async throws {
        let created = Date(timeIntervalSince1970: 1_746_093_600)  // 2025-05-01T10:00:00Z
        let updated = Date(timeIntervalSince1970: 1_746_185_400)  // 2025-05-02T11:30:00Z
        let albaID = UUID(uuidString: "6A1E9F10-0000-4000-8000-0000000000A1")!
        let rubraID = UUID(uuidString: "6A1E9F10-0000-4000-8000-0000000000A2")!
        let (folder, data) = try originalAppFolder([
            SynthesizedCodingNote(
                id: albaID, taxonomy: .init(subgenus: "Quercus", section: "Quercus", species: "alba"),
                fields: [.commonNames: "White oak", .leaf: "Rounded lobes", .rangeHabitat: "Dry ridges"], sourceId: nil,
                photoFileNames: ["\(albaID.uuidString)_1.jpg"], createdAt: created, updatedAt: updated),
            SynthesizedCodingNote(
                id: rubraID, taxonomy: .init(subgenus: "Quercus", section: "Lobatae", species: "rubra"),
                fields: [.twigs: "Stout, reddish"], sourceId: Source.personalObservationID, photoFileNames: [],
                createdAt: created, updatedAt: created),
        ])
        // The fixture really holds the array form: each note's fields decode as a list of strings.
        let written = try JSONDecoder().decode([FieldsAsArray].self, from: data)
        #expect(written.map(\.fields.count) == [6, 2])

        let store = try LocalStore.inMemory()
        try await store.importStarterCatalog(try StarterCatalog.bundled())
        let summary = try await LegacyAppImport(store: store).run(directory: folder)
        #expect(summary.importedNotes == 2)
        #expect(summary.createdSpecies == 0)
        #expect(summary.problems.isEmpty)
        let notes = NotesRepository(store: store)
        let alba = try #require(try await notes.note(id: albaID))
        #expect(alba.scientificName == "alba")
        #expect(alba.fields == NoteFields(commonNames: "White oak", leaf: "Rounded lobes", rangeHabitat: "Dry ridges"))
        #expect(alba.sourceId == Source.personalObservationID)
        #expect(alba.createdAt == created)
        #expect(alba.updatedAt == updated)
        #expect(alba.syncStatus == .pendingUpload)
        let rubra = try #require(try await notes.note(id: rubraID))
        #expect(rubra.scientificName == "rubra")
        #expect(rubra.fields == NoteFields(twigs: "Stout, reddish"))
        #expect(rubra.createdAt == created)
        #expect(rubra.updatedAt == created)
    }

    @Test(
        "an alternating-array notes file with an unknown field name, an empty text and no sourceId imports, dropping only the unknown field and the empty text")
    func alternatingArrayToleratesUnknownAndEmpty() async throws {
        let time = Date(timeIntervalSince1970: 1_748_764_800)  // 2025-06-01T08:00:00Z
        let id = UUID(uuidString: "6A1E9F10-0000-4000-8000-0000000000B1")!
        let (folder, data) = try originalAppFolder([
            SynthesizedCodingNote(
                id: id, taxonomy: .init(subgenus: "Quercus", section: "Quercus", species: "alba"),
                fields: [.flowersExtra: "Catkins in April", .bark: "", .acorn: "Shallow cup", .fieldNotes: "   "], sourceId: nil,
                photoFileNames: [], createdAt: time, updatedAt: time)
        ])
        #expect(try JSONDecoder().decode([FieldsAsArray].self, from: data).map(\.fields.count) == [8])
        #expect(!String(decoding: data, as: UTF8.self).contains("sourceId"))

        let store = try LocalStore.inMemory()
        try await store.importStarterCatalog(try StarterCatalog.bundled())
        let summary = try await LegacyAppImport(store: store).run(directory: folder)
        #expect(summary.importedNotes == 1)
        #expect(summary.problems.isEmpty)
        let note = try #require(try await NotesRepository(store: store).note(id: id))
        #expect(note.fields == NoteFields(acorn: "Shallow cup"))
        #expect(note.sourceId == Source.personalObservationID)
        #expect(note.updatedAt == time)
    }

    @Test("an alternating-array fields list with an odd number of elements or a non-string element is a decoding error, and nothing is imported")
    func malformedAlternatingArrayFails() async throws {
        for fields in [#"["leaf", "Lobed", "bark"]"#, #"["leaf", 3]"#] {
            let folder = temporaryDirectory("oak-legacy-odd")
            let file = """
                [{"id": "6A1E9F10-0000-4000-8000-0000000000C1", "taxonomy": {"subgenus": "Quercus", "section": "Quercus", "species": "alba"},
                  "fields": \(fields), "createdAt": "2025-06-01T08:00:00Z", "updatedAt": "2025-06-01T08:00:00Z"}]
                """
            try Data(file.utf8).write(to: folder.appendingPathComponent(LegacyAppImport.notesFileName))
            let store = try LocalStore.inMemory()
            await #expect(throws: DecodingError.self) { _ = try await LegacyAppImport(store: store).run(directory: folder) }
            #expect(try await store.noteCount() == 0)
        }
    }

    @Test("a note without fields and with keys the importer does not read imports with no fields")
    func missingFieldsIsNoFields() async throws {
        let folder = temporaryDirectory("oak-legacy-nofields")
        let file = """
            [{"id": "6A1E9F10-0000-4000-8000-0000000000D1", "taxonomy": {"subgenus": "Quercus", "section": "Quercus", "species": "alba"},
              "photoFileNames": ["a.jpg"], "somethingNew": true, "createdAt": "2025-06-01T08:00:00Z", "updatedAt": "2025-06-01T08:00:00Z"}]
            """
        try Data(file.utf8).write(to: folder.appendingPathComponent(LegacyAppImport.notesFileName))
        let store = try LocalStore.inMemory()
        try await store.importStarterCatalog(try StarterCatalog.bundled())
        #expect(try await LegacyAppImport(store: store).run(directory: folder).importedNotes == 1)
        let note = try #require(try await NotesRepository(store: store).note(id: UUID(uuidString: "6A1E9F10-0000-4000-8000-0000000000D1")!))
        #expect(note.fields == NoteFields())
        #expect(note.sourceId == Source.personalObservationID)
    }

    @Test("a bad old notes file is reported once with the reason, nothing is imported, and the alert goes away once read")
    func badOldFile() async throws {
        let folder = temporaryDirectory("oak-legacy-bad")
        try Data("[{\"id\": 12}]".utf8).write(to: folder.appendingPathComponent("species_notes.json"))
        let preferences = MemoryPreferences()
        let test = try TestApp(legacyDirectory: folder, preferences: preferences)
        await test.app.launch()
        let problem = try #require(test.app.launchProblem)
        #expect(problem.hasPrefix("The notes of the previous version could not be moved: "))
        #expect(problem.count > "The notes of the previous version could not be moved: ".count + 40, "the reason is in it")
        #expect(try await test.app.store.pendingChangeCount() == 0)
        #expect(try await test.app.store.catalog().species.count == 96)
        test.app.dismissLaunchProblem()
        #expect(test.app.launchProblem == nil)
        // The next launch tries again, quietly: the user was told.
        let next = try TestApp(legacyDirectory: folder, preferences: preferences)
        await next.app.launch()
        #expect(next.app.launchProblem == nil)
        #expect(try await next.app.store.pendingChangeCount() == 0)
        #expect(!preferences.legacyFilesImported)
    }

    @Test("the app's starter catalog loads every species of the starter dataset, as a new server database exports them")
    func starterCatalogLoadsEverySpecies() async throws {
        let catalog = try StarterCatalog.bundled()
        let dataset = try StarterDataset.load()
        #expect(catalog.species.count == 96)
        #expect(catalog.species.map(\.asSpecies) == dataset.species)
        #expect(catalog.sources.map(\.source.id) == StarterDataset.standardSources.map(\.id))
        // What the first sync with a new server brings is what the device already shows.
        let path = temporaryDirectory("oak-starter").appendingPathComponent("fresh.db").path
        let fresh = try JSONDecoder().decode(ExportFile.self, from: Data(try await SQLiteStore(path: path).export().body.readableBytesView))
        #expect(catalog.species == fresh.species)
        #expect(catalog.sources == fresh.sources)
    }
}

/// A test-only stand-in for the original app's note model (our own code, the same shape): its fields are keyed
/// by a `String` enum, and its hand-written `encode(to:)` writes them as an object keyed by the raw values,
/// writes `sourceId` only when there is one, and always writes `photoFileNames`. That is what a phone holds.
struct OriginalAppNote: Encodable {
    struct Taxonomy: Encodable {
        var subgenus: String
        var section: String
        var subsection: String? = nil
        var complex: String? = nil
        var species: String
    }

    enum FieldKey: String {
        case commonNames = "common_names"
        case leaf, acorn, bark, buds, form
        case rangeHabitat = "range_habitat"
        case fieldNotes = "field_notes"
        case resources
    }

    var id: UUID
    var taxonomy: Taxonomy
    var fields: [FieldKey: String]
    var sourceId: Int?
    var photoFileNames: [String] = []
    var createdAt: Date
    var updatedAt: Date

    enum CodingKeys: String, CodingKey { case id, taxonomy, fields, photoFileNames, sourceId, createdAt, updatedAt }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(taxonomy, forKey: .taxonomy)
        try container.encode(photoFileNames, forKey: .photoFileNames)
        try container.encodeIfPresent(sourceId, forKey: .sourceId)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(Dictionary(uniqueKeysWithValues: fields.map { ($0.key.rawValue, $0.value) }), forKey: .fields)
    }

    /// The original app's storage encoder: ISO 8601 dates, pretty-printed, sorted keys.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }()
}

/// The same shape with the synthesized `Encodable`, as a tool that stores the enum-keyed dictionary as it is
/// would write it: `fields` becomes the alternating array `[name, text, ...]` (the key type is not
/// `CodingKeyRepresentable`). `flowersExtra` is a name the importer does not know.
private struct SynthesizedCodingNote: Codable {
    struct Taxonomy: Codable {
        var subgenus: String
        var section: String
        var subsection: String?
        var complex: String?
        var species: String
    }

    enum FieldKey: String, Codable {
        case commonNames = "common_names"
        case leaf, acorn, bark, twigs, buds, form
        case rangeHabitat = "range_habitat"
        case fieldNotes = "field_notes"
        case resources
        case flowersExtra = "flowers_extra"
    }

    var id: UUID
    var taxonomy: Taxonomy
    var fields: [FieldKey: String]
    var sourceId: Int?
    var photoFileNames: [String]
    var createdAt: Date
    var updatedAt: Date
}

/// Reads a written note's `fields` as a list of strings; decoding fails if they were written as an object.
private struct FieldsAsArray: Decodable {
    var fields: [String]
}

@Suite("Importing the previous app's files from the Files app")
@MainActor
struct PickedLegacyFilesTests {
    @Test("the notes and sources files picked in the Files app are imported as at launch; a wrong file says so and imports nothing")
    func importsPickedFiles() async throws {
        let test = try TestApp()
        await test.app.launch()
        let refused = await test.app.importFromPreviousApp(files: ["trail.json": Data("{\"not\": \"notes\"}".utf8)])
        #expect(refused?.hasPrefix("These are not the previous app's files") == true)
        let onlySources = await test.app.importFromPreviousApp(files: ["sources.json": Data(LegacyAndStarterTests.oldSources.utf8)])
        #expect(onlySources?.hasPrefix("Choose the previous app's species_notes.json") == true)
        #expect(try await test.app.store.pendingChangeCount() == 0)
        #expect(test.app.legacyImport == nil)

        let problem = await test.app.importFromPreviousApp(files: [
            "species_notes.json": try LegacyAndStarterTests.oldNotes(), "sources.json": Data(LegacyAndStarterTests.oldSources.utf8),
        ])
        #expect(problem == nil)
        let summary = try #require(test.app.legacyImport)
        #expect(summary.importedNotes == 4)
        #expect(summary.createdSources == 1)
        try await eventually("the notes are listed") { test.app.notesList.rows.count == 4 }
    }
}
