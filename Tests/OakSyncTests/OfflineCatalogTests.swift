import Foundation
import GRDB
import OakClient
import OakModels
import OakStore
import OakTestBasics
import OakTestSupport
import Testing

@testable import OakSync

@Suite("Offline catalog writes, the local store, and the starter catalog")
struct OfflineCatalogTests {
    @Test(
        "the device finds a species by its exact stored name first (x keepii beside × keepii), and a note for a hybrid stored with an ASCII x is kept under that name"
    )
    func storedSpellingsOnTheDevice() async throws {
        let store = try LocalStore.inMemory()
        try await store.writer.write { db in
            for name in ["x keepii", "× keepii", "berberidifolia x cornelius-mulleri"] {
                try LocalStore.saveRecord(db, .species(name), Species(scientificName: name), status: .synced)
            }
        }
        let catalog = try await store.catalog()
        #expect(catalog.species(named: "x keepii")?.scientificName == "x keepii")
        #expect(catalog.species(named: "× keepii")?.scientificName == "× keepii")
        #expect(catalog.species(named: "berberidifolia × cornelius-mulleri")?.scientificName == "berberidifolia x cornelius-mulleri")
        let repository = NotesRepository(store: store)
        let note = try await repository.create(scientificName: "berberidifolia x cornelius-mulleri", fields: NoteFields(leaf: "spiny"))
        #expect(note.scientificName == "berberidifolia x cornelius-mulleri")
        #expect(try await repository.notes(species: "berberidifolia x cornelius-mulleri").map(\.id) == [note.id])
        #expect(try await store.sourceData(of: "berberidifolia x cornelius-mulleri").map(\.id) == [note.id])
    }

    @Test("a source and species created offline are created once on the server even when every create's answer is lost")
    func catalogPushIsIdempotent() async throws {
        try await LiveServer.run { server in
            let device = try Device(server: server, clock: WriteClock())
            let catalog = OfflineCatalog(store: device.repository.store)
            var source = SourcePatch()
            source.name = .value("Ridge Walks")
            source.sourceType = .value("Book")
            source.year = .value(2018)
            let local = try await catalog.createSource(source)
            var species = SpeciesPatch()
            species.scientificName = .value("ridgeana")
            species.subgenus = .value("Quercus")
            try await catalog.createSpecies(species)
            try await device.repository.create(scientificName: "ridgeana", sourceId: local.id, fields: NoteFields(leaf: "Narrow"))
            // Every answer is lost: the server applies each create, the device never hears of it.
            device.network.faults.dropResponse = 1
            await device.engine.sync()
            await device.engine.sync()
            device.network.faults.dropResponse = 0
            await device.engine.sync()
            #expect(await device.engine.status.state == .idle)
            let stored = try await server.store.listSources().filter { $0.name == "Ridge Walks" }
            #expect(stored.count == 1)
            #expect(try await server.store.species(named: "ridgeana").subgenus == "Quercus")
            let notes = try await server.store.notes(species: "ridgeana", sourceId: try #require(stored.first).id)
            #expect(notes.map(\.fields.leaf) == ["Narrow"])
            let snapshot = try await device.repository.store.catalog()
            #expect(snapshot.source(id: local.id) == nil)
            #expect(snapshot.syncState(ofSource: try #require(stored.first).id) == .synced)
            #expect(try await device.repository.store.pendingChangeCount() == 0)
        }
    }

    @Test("a source the server refuses is marked with the reason, and the rest of the sync goes on")
    func refusedSource() async throws {
        try await LiveServer.run { server in
            let device = try Device(server: server, clock: WriteClock())
            let store = device.repository.store
            // Written as an older client might have: a name longer than the server accepts.
            try await OfflineCatalog(store: store).createSource(
                {
                    var patch = SourcePatch()
                    patch.name = .value("Short")
                    patch.sourceType = .value("Book")
                    return patch
                }())
            let local = try #require(try await store.catalog().sources.first { $0.id < 0 })
            var tooLong = local
            tooLong.name = String(repeating: "n", count: 201)
            try await store.overwriteForTest(tooLong)
            try await device.repository.create(scientificName: "alba", fields: NoteFields(bark: "Grey"))
            await device.engine.sync()
            guard case .rejected(let error) = try await store.catalog().syncState(ofSource: local.id) else {
                Issue.record("the source should be rejected")
                return
            }
            #expect(error.summary.contains("name"))
            #expect(try await server.store.notes(species: "alba", sourceId: Source.personalObservationID).first?.fields.bark == "Grey")
        }
    }

    @Test("pulled notes keep the source data beyond note fields: flowers, hardiness and habitat, preferred")
    func referenceFieldsPulled() async throws {
        try await LiveServer.run { server in
            var patch = SpeciesSourcePatch()
            patch.sourceId = .value(Source.oaksOfTheWorldID)
            patch.flowers = .value("Male catkins 5–10 cm")
            patch.hardinessHabitat = .value("Zone 4")
            patch.isPreferred = .value(true)
            _ = try await server.store.createSpeciesSource(of: "rubra", with: patch)
            let device = try Device(server: server, clock: WriteClock())
            await device.engine.sync()
            let data = try await device.repository.store.sourceData(of: "rubra")
            let reference = try #require(data.first { $0.sourceId == Source.oaksOfTheWorldID }?.reference)
            #expect(reference == NoteReference(flowers: "Male catkins 5–10 cm", hardinessHabitat: "Zone 4", isPreferred: true))
        }
    }

    @Test("a device database from before note columns keeps its notes and pending state, and pulls everything again")
    func migratesVersionOneDatabase() async throws {
        let path = temporaryDirectory("oak-v1").appendingPathComponent("device.db").path
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1');
                    CREATE TABLE notes (id BLOB PRIMARY KEY NOT NULL, scientific_name TEXT NOT NULL, source_id INTEGER NOT NULL,
                        taxonomy TEXT NOT NULL, fields TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
                        server_version INTEGER NOT NULL, local_version INTEGER NOT NULL, sync_status TEXT NOT NULL, last_error TEXT);
                    CREATE UNIQUE INDEX notes_species_source ON notes(scientific_name, source_id);
                    CREATE INDEX notes_sync_status ON notes(sync_status);
                    CREATE TABLE catalog (entity TEXT NOT NULL, key TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (entity, key));
                    CREATE TABLE sync_state (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    INSERT INTO sync_state VALUES ('cursor', 'abc.12');
                    INSERT INTO catalog VALUES ('species', 'alba', '{"scientific_name":"alba","is_hybrid":false,"subgenus":"Quercus"}');
                    """)
            try db.execute(
                sql: "INSERT INTO notes VALUES (?, 'alba', 3, ?, ?, '2025-01-01 10:00:00.000', '2025-01-02 10:00:00.000', 4, 2, 'pendingUpload', NULL)",
                arguments: [
                    UUID(uuidString: "00000000-0000-4000-8000-0000000000AA")!,
                    #"{"subgenus":"Quercus","section":"Quercus","subsection":null,"complex":null}"#,
                    #"{"commonNames":"White oak","leaf":"Lobed","acorn":null}"#,
                ])
        }
        try queue.close()
        let store = try LocalStore(path: path)
        let note = try #require(try await NotesRepository(store: store).note(id: UUID(uuidString: "00000000-0000-4000-8000-0000000000AA")!))
        #expect(note.fields == NoteFields(commonNames: "White oak", leaf: "Lobed"))
        #expect(note.taxonomy == NoteTaxonomy(subgenus: "Quercus", section: "Quercus"))
        #expect(note.syncStatus == .pendingUpload)
        #expect(note.serverVersion == 4)
        #expect(note.localVersion == 2)
        #expect(try await store.cursor() == nil)
        #expect(try await store.species(named: "alba")?.subgenus == "Quercus")
    }

    @Test("the typed catalog is read once and dropped when the catalog changes")
    func catalogCacheFollowsWrites() async throws {
        let store = try LocalStore.inMemory()
        let empty = try await store.catalog()
        #expect(empty.species.isEmpty)
        var patch = SpeciesPatch()
        patch.scientificName = .value("cachetiana")
        try await OfflineCatalog(store: store).createSpecies(patch)
        let after = try await store.catalog()
        #expect(after.species.map(\.scientificName) == ["cachetiana"])
        #expect(after.syncState(ofSpecies: "cachetiana") == .pendingUpload)
        #expect(after.pendingCount == 1)
        await #expect(throws: OakError.self) { try await OfflineCatalog(store: store).createSpecies(patch) }
    }
}

extension LocalStore {
    /// Overwrites a source record as stored, bypassing validation (a record an older client wrote).
    func overwriteForTest(_ source: Source) async throws {
        let record = String(decoding: try JSONEncoder().encode(source), as: UTF8.self)
        try await writer.write { db in
            try db.execute(sql: "UPDATE catalog SET record = ? WHERE entity = 'sources' AND key = ?", arguments: [record, String(source.id)])
        }
    }
}
