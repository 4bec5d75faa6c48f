import Foundation
import GRDB
import OakModels
import Testing

@testable import OakStore

@Suite("Search documents: one per species and one per source row (v8)")
struct SearchDocumentsTests {
    private func names(_ store: SQLiteStore, _ query: String) async throws -> [String] {
        try await store.searchSpecies(query: query, limit: 20).map(\.scientificName)
    }

    private func newStore() throws -> SQLiteStore {
        try SQLiteStore(path: FileManager.default.temporaryDirectory.appendingPathComponent("oak-search-\(UUID().uuidString).db").path)
    }

    @Test("a note's common names are found as soon as it is written, by word, word start and infix, and no longer once changed or deleted")
    func noteNamesFollowWrites() async throws {
        let store = try newStore()
        var fields = NoteFieldsPatch()
        try fields.set("commonNames", to: "Zyxwell oak, chêne zyxwell")
        let note = try await store.createNote(NoteInput(scientificName: "alba", fields: fields))
        #expect(try await names(store, "zyxwell") == ["alba"])
        #expect(try await names(store, "chene zyx") == ["alba"])
        #expect(try await names(store, "xwel") == ["alba"])

        var renamed = NoteFieldsPatch()
        try renamed.set("commonNames", to: "Qwertle oak")
        _ = try await store.updateNote(id: note.id, with: NoteInput(fields: renamed), expectedVersion: nil)
        #expect(try await names(store, "zyxwell").isEmpty)
        #expect(try await names(store, "qwertle") == ["alba"])

        try await store.deleteNote(id: note.id, expectedVersion: nil)
        #expect(try await names(store, "qwertle").isEmpty)
        // The species itself is still found by its name.
        #expect(try await names(store, "alba").first == "alba")
    }

    @Test("deleting a species removes its own document and every source row's, so nothing finds it")
    func speciesDeleteRemovesDocuments() async throws {
        let store = try newStore()
        var species = SpeciesPatch()
        species.scientificName = .value("zyxwelliana")
        _ = try await store.createSpecies(species)
        var fields = NoteFieldsPatch()
        try fields.set("commonNames", to: "Qwertle oak")
        _ = try await store.createNote(NoteInput(scientificName: "zyxwelliana", fields: fields))
        #expect(try await names(store, "qwertle") == ["zyxwelliana"])
        try await store.deleteSpecies(named: "zyxwelliana")
        #expect(try await names(store, "qwertle").isEmpty)
        #expect(try await names(store, "zyxwell").isEmpty)
        let left = try store.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM search_words WHERE search_words MATCH 'qwertle OR zyxwelliana'") ?? -1
        }
        #expect(left == 0)
    }

    @Test("writing a note indexes that note alone, not every name of its species again")
    func writeIndexesOneDocument() async throws {
        let store = try newStore()
        let before = try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM search_trigrams") ?? 0 }
        var fields = NoteFieldsPatch()
        try fields.set("commonNames", to: "Bench oak")
        let note = try await store.createNote(NoteInput(scientificName: "alba", fields: fields))
        let documents = try store.read { db in
            try Row.fetchAll(
                db, sql: """
                    SELECT rowid, local_names FROM search_trigrams WHERE rowid =
                        ((SELECT id FROM species_search_keys WHERE scientific_name = 'alba') << 32) | (SELECT id FROM species_sources WHERE uuid = ?)
                    """,
                arguments: [note.id.uuidString.lowercased()])
        }
        #expect(documents.count == 1)
        #expect((documents.first?["local_names"] as String?)?.contains("Bench oak") == true)
        let after = try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM search_trigrams") ?? 0 }
        #expect(after == before + 1)
    }

    @Test("a database with one search document per species (before v8) is re-indexed and finds the same species")
    func migratesSingleDocumentIndexes() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("oak-search-v7-\(UUID().uuidString).db").path
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v7 standard source types")
        try await queue.write { db in
            try db.execute(sql: """
                INSERT INTO sources (id, source_type, name) VALUES (3, 'Personal Observation', 'My notes');
                INSERT INTO oak_entries (scientific_name, synonyms) VALUES ('robur', '["Quercus pedunculata Ehrh."]');
                INSERT INTO species_sources (scientific_name, source_id, local_names) VALUES ('robur', 3, '["English oak","Stieleiche"]');
                """)
        }
        try queue.close()
        let store = try SQLiteStore(path: path, seedStarterData: false)
        #expect(try await names(store, "stiel") == ["robur"])
        #expect(try await names(store, "english") == ["robur"])
        #expect(try await names(store, "pedunculata") == ["robur"])
        let tables = try store.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'species_%'") }
        #expect(!tables.contains("species_fts") && !tables.contains("species_trigram"))
    }
}
