import Foundation
import GRDB
import OakModels
import OakStore
import OakTestSupport
import Testing

@testable import OakStoreSQLite

@Suite("Species search in memory: the index follows every write and answers by the shared rule")
struct SearchIndexTests {
    private func names(_ store: any CompendiumStore, _ query: String) async throws -> [String] {
        try await store.searchSpecies(query: query, limit: 20).map(\.scientificName)
    }

    private func newStore() throws -> SQLiteStore {
        try temporaryStore("oak-search")
    }

    /// Runs SQL on a store's database as another program would, past the store.
    private func asAnotherProgram(_ backend: TestBackend, _ database: String, _ sql: String) async throws {
        switch backend {
        case .sqlite:
            let other = try DatabaseQueue(path: database)
            try await other.write { db in try db.execute(sql: sql) }
            try other.close()
        case .postgres:
            _ = try await postgresCount(url: database, sql + " RETURNING 0", [])
        }
    }

    @Test(
        "a note's common names are found as soon as it is written, by word, word start and infix, and no longer once changed or deleted",
        arguments: TestBackend.available)
    func noteNamesFollowWrites(_ backend: TestBackend) async throws {
        let (store, _) = try await temporaryStore(backend)
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

    @Test("deleting a species removes its own document and every source row's, so nothing finds it", arguments: TestBackend.available)
    func speciesDeleteRemovesDocuments(_ backend: TestBackend) async throws {
        let (store, _) = try await temporaryStore(backend)
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
    }

    @Test(
        "a write by another program (straight SQL on the database) is found by the next search, and its undo is too",
        arguments: TestBackend.available)
    func otherProgramsWritesAreFound(_ backend: TestBackend) async throws {
        let (store, database) = try await temporaryStore(backend)
        #expect(try await names(store, "glorbwood").isEmpty)
        try await asAnotherProgram(
            backend, database, "INSERT INTO species_sources (scientific_name, source_id, local_names) VALUES ('alba', 3, '[\"Glorbwood oak\"]')")
        #expect(try await names(store, "glorbwood") == ["alba"])
        #expect(try await names(store, "rbwo") == ["alba"])
        try await asAnotherProgram(backend, database, "DELETE FROM species_sources WHERE local_names LIKE '%Glorbwood%'")
        #expect(try await names(store, "glorbwood").isEmpty)
    }

    @Test("more changes than the change feed reads at once rebuild the index, and it finds the same as a new store")
    func manyChangesRebuild() async throws {
        let store = try newStore()
        _ = try await names(store, "alba")
        try await store.pool.write { db in
            for number in 0...DataChanges.feedLimit {
                try db.execute(
                    sql: "INSERT INTO oak_entries (scientific_name, synonyms) VALUES (?, ?)",
                    arguments: ["zorbiana\(number)", "[\"Quercus plinkii \(number)\"]"])
            }
        }
        let found = try await store.searchSpecies(query: "plinkii 12", limit: 50).map(\.scientificName)
        #expect(found.first == "zorbiana12")
        #expect(found.count == 11)  // 12 and 120 to 129
        let fresh = try SQLiteStore(path: store.path)
        #expect(try await fresh.searchSpecies(query: "plinkii 12", limit: 50).map(\.scientificName) == found)
    }

    @Test("a source row moved to another species is found under the new species only")
    func rowMovesSpecies() async throws {
        let store = try newStore()
        var fields = NoteFieldsPatch()
        try fields.set("commonNames", to: "Wibblewood")
        let note = try await store.createNote(NoteInput(scientificName: "alba", fields: fields))
        #expect(try await names(store, "wibble") == ["alba"])
        try await store.pool.write { db in
            try db.execute(sql: "UPDATE species_sources SET scientific_name = 'rubra' WHERE uuid = ?", arguments: [note.id.uuidString.lowercased()])
        }
        #expect(try await names(store, "wibble") == ["rubra"])
    }

    @Test("one- and two-letter queries compare with every species, and every answer is the rule's")
    func shortQueries() async throws {
        let store = try newStore()
        let catalog = try await store.listSpecies(filter: SpeciesFilter(), limit: 1000, offset: 0).data
        let localNames = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT scientific_name, local_names FROM species_sources").reduce(into: [String: [String]]()) {
                $0[$1["scientific_name"], default: []] += ColumnCoding.strings($1["local_names"])
            }
        }
        for query in ["a", "lb", "×", "oak"] {
            let expected = SpeciesSearch(query: query).rank(catalog, localNames: { localNames[$0.scientificName] ?? [] }, limit: 20)
                .map(\.scientificName)
            #expect(try await names(store, query) == expected, "query \(query)")
        }
    }

    @Test("a database with the full-text indexes of earlier versions loses them (v11) and finds the same species")
    func dropsFullTextIndexes() async throws {
        let path = temporaryDatabasePath("oak-search-v10")
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v10 lean note logging")
        try await queue.write { db in
            // What v8 of earlier builds left in a file: FTS5 tables and the triggers that kept them.
            try db.execute(
                sql: """
                    CREATE TABLE species_search_keys (id INTEGER PRIMARY KEY, scientific_name TEXT NOT NULL UNIQUE);
                    CREATE VIRTUAL TABLE search_words USING fts5(scientific_name, synonyms, local_names);
                    CREATE VIRTUAL TABLE search_trigrams USING fts5(scientific_name, synonyms, local_names, tokenize = 'trigram');
                    CREATE TRIGGER oak_entries_searched_insert AFTER INSERT ON oak_entries BEGIN
                        INSERT OR IGNORE INTO species_search_keys(scientific_name) VALUES (NEW.scientific_name);
                    END;
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
        let leftovers = try store.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'search_%' OR name LIKE '%_searched_%' OR name LIKE 'species_search%'")
        }
        #expect(leftovers.isEmpty)
        // The listing version still moves when a source row is added.
        let before = try store.read { db in try SQLiteStore.listingVersion(db) }
        try await store.pool.write { db in
            try db.execute(sql: "INSERT INTO species_sources (scientific_name, source_id, local_names) VALUES ('robur', 1, '[\"Pedunculate oak\"]')")
        }
        #expect(try store.read { db in try SQLiteStore.listingVersion(db) } == before + 1)
    }
}
