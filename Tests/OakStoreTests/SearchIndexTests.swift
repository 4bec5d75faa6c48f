import Foundation
import GRDB
import NIOCore
import OakModels
import OakStore
import OakStoreKit
import OakTestBasics
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

    /// The species a search finds once it finds `expected`, or after three seconds what it finds then: a
    /// write by another program is seen within a second (`dataVersion`).
    private func eventualNames(_ store: any CompendiumStore, _ query: String, _ expected: [String]) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(3)
        while true {
            let found = try await names(store, query)
            if found == expected || ContinuousClock.now > deadline { return found }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test(
        "a write by another program (straight SQL on the database) is found by a search within a second, and its undo is too",
        arguments: TestBackend.available)
    func otherProgramsWritesAreFound(_ backend: TestBackend) async throws {
        let (store, database) = try await temporaryStore(backend)
        #expect(try await names(store, "glorbwood").isEmpty)
        try await asAnotherProgram(
            backend, database, "INSERT INTO species_sources (scientific_name, source_id, local_names) VALUES ('alba', 3, '[\"Glorbwood oak\"]')")
        #expect(try await eventualNames(store, "glorbwood", ["alba"]) == ["alba"])
        #expect(try await names(store, "rbwo") == ["alba"])
        try await asAnotherProgram(backend, database, "DELETE FROM species_sources WHERE local_names LIKE '%Glorbwood%'")
        #expect(try await eventualNames(store, "glorbwood", []).isEmpty)
    }

    @Test(
        "taxa and sources are found by the catalog search as soon as they are added, renamed or deleted, exact names first, then prefixes, then the rest",
        arguments: TestBackend.available)
    func taxaAndSourcesFollowWrites(_ backend: TestBackend) async throws {
        let (store, _) = try await temporaryStore(backend)
        func found(_ query: String) async throws -> (taxa: [String], sources: [String]) {
            let result = try await store.search(query: query, limit: 20)
            return (result.taxa.map(\.name), result.sources.map(\.name))
        }
        #expect(try await found("plonk") == ([], []))
        for name in ["Xplonk", "Plonkish", "PLONK"] {
            var source = SourcePatch()
            source.sourceType = .value("website")
            source.name = .value(name)
            _ = try await store.createSource(source)
        }
        var taxon = TaxonPatch()
        taxon.name = .value("Plonkia")
        taxon.level = .value("section")
        _ = try await store.createTaxon(taxon)
        #expect(try await found("plonk") == (["Plonkia"], ["PLONK", "Plonkish", "Xplonk"]))

        let plonkish = try #require(try await store.search(query: "plonkish", limit: 20).sources.first)
        var rename = SourcePatch()
        rename.name = .value("Wobble")
        _ = try await store.updateSource(id: plonkish.id, with: rename)
        #expect(try await found("plonk") == (["Plonkia"], ["PLONK", "Xplonk"]))
        #expect(try await found("obbl").sources == ["Wobble"])
        try await store.deleteTaxon(level: .section, name: "Plonkia")
        #expect(try await found("plonk").taxa.isEmpty)
    }

    @Test(
        "the search answer is its model's own encoding, byte for byte, and a species in it follows its edits and deletion",
        arguments: TestBackend.available)
    func searchDocumentIsTheModelsEncoding(_ backend: TestBackend) async throws {
        let (store, _) = try await temporaryStore(backend)
        /// The answer read as the model, after checking that encoding the model gives the same bytes.
        func answer(_ query: String) async throws -> CatalogSearchResult {
            let document = Data(try await store.searchDocument(query: query, limit: 20).readableBytesView)
            let result = try JSONDecoder().decode(CatalogSearchResult.self, from: document)
            #expect(String(decoding: try WireJSON.encoder.encode(result), as: UTF8.self) == String(decoding: document, as: UTF8.self))
            return result
        }
        var species = SpeciesPatch()
        species.scientificName = .value("zyxwelliana")
        species.author = .value("Née \"quoted\" \\ author")
        species.isHybrid = .value(true)
        species.parent1 = .value("alba")
        species.synonyms = .value(["Quercus zyxwellii", "Q. zyx/welli"])
        species.externalLinks = .value([.object(["name": .string("Zyx Trees"), "url": .string("https://example.org/zyx?a=1&b=2")])])
        _ = try await store.createSpecies(species)
        var source = SourcePatch()
        source.sourceType = .value("website")
        source.name = .value("Zyxwell Press")
        _ = try await store.createSource(source)
        var taxon = TaxonPatch()
        taxon.name = .value("Zyxwellia")
        taxon.level = .value("section")
        _ = try await store.createTaxon(taxon)

        let found = try await answer("zyxwell")
        #expect(found.species == [try await store.species(named: "zyxwelliana")])
        #expect(found.taxa.map(\.name) == ["Zyxwellia"])
        #expect(found.sources.map(\.name) == ["Zyxwell Press"])
        let counts = found.counts
        #expect([counts.species, counts.taxa, counts.sources, counts.total] == [1, 1, 1, 3] as [Int])
        var second = SpeciesPatch()
        second.scientificName = .value("zyxwellii")
        _ = try await store.createSpecies(second)
        // Several species come in the rule's order, as the species search lists them.
        #expect(try await answer("zyxwell").species.map(\.scientificName) == (try await names(store, "zyxwell")))
        #expect(try await answer("zyxwell").species.count == 2)
        #expect(try await answer("no such oak anywhere").counts.total == 0)

        var edit = SpeciesPatch()
        edit.author = .value("Someone Else")
        _ = try await store.updateSpecies(named: "zyxwelliana", with: edit)
        #expect(try await answer("zyxwelliana").species.map(\.author) == ["Someone Else"])
        try await store.deleteSpecies(named: "zyxwelliana")
        #expect(try await answer("zyxwell").species.map(\.scientificName) == ["zyxwellii"])
    }

    @Test("a taxon's or source's name matches ignoring ASCII case only: equal 0, prefix 1, infix 2, else none; matches sort by rank, name bytes, tie-break")
    func nameRule() throws {
        let search = try SearchText("CeRr")
        func rank(_ name: String) -> Int? { search.nameRank(folded: SearchText.folded(name)) }
        #expect(rank("cerr") == 0)
        #expect(rank("Cerris") == 1)
        #expect(rank("Sect. Cerris") == 2)
        #expect(rank("cer") == nil)
        #expect(rank("Robur") == nil)
        #expect(rank("") == nil)
        // SQLite's lower() folds ASCII only, so É and é differ.
        #expect(try SearchText("é").nameRank(folded: SearchText.folded("É")) == nil)
        #expect(try SearchText("é").nameRank(folded: SearchText.folded("Chéne")) == 2)

        struct Named: SearchableName {
            let name: String
            let id: Int
            var foldedName: [UInt8] { SearchText.folded(name) }
        }
        let items = [
            Named(name: "b cerr", id: 1), Named(name: "Cerris", id: 2), Named(name: "a cerr", id: 3), Named(name: "CERR", id: 4),
            Named(name: "Cerris", id: 0), Named(name: "oak", id: 5),
        ]
        #expect(search.ranked(items, limit: 10) { $0.id < $1.id }.map(\.id) == [4, 0, 2, 3, 1])
        #expect(search.ranked(items, limit: 2) { $0.id < $1.id }.map(\.id) == [4, 0])
    }

    @Test("more changes than the change feed reads at once rebuild the index, and it finds the same as a new store")
    func manyChangesRebuild() async throws {
        let store = try newStore()
        _ = try await names(store, "alba")
        try await store.write { db in
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
        try await store.write { db in
            try db.execute(sql: "UPDATE species_sources SET scientific_name = 'rubra' WHERE uuid = ?", arguments: [note.id.uuidString.lowercased()])
        }
        #expect(try await names(store, "wibble") == ["rubra"])
    }

    /// A catalog search made from memory at the store's data version now.
    private func searchedInMemory(_ store: SQLiteStore, _ query: String, limit: Int = 20) async throws -> ByteBuffer? {
        store.searchDocumentInMemory(query: query, limit: limit, at: try await store.dataVersion())
    }

    @Test(
        "a catalog search made from memory is byte for byte the store's own answer, and none is made before the index is filled, while it is behind a write or at another version, when a taxon or source matches, or for a query the route refuses"
    )
    func catalogSearchInMemory() async throws {
        let store = try newStore()
        #expect(try await searchedInMemory(store, "alba") == nil)
        let answer = try await store.searchDocument(query: "alba", limit: 20)
        #expect(try await searchedInMemory(store, "alba") == answer)
        #expect(try await store.search(query: "alba", limit: 20).species.first?.scientificName == "alba")
        for query in ["ab", "white oak", "xyzzy"] {
            #expect(try await searchedInMemory(store, query, limit: 3) == (try await store.searchDocument(query: query, limit: 3)), "query \(query)")
        }

        // Lobatae is a section: its row is read from the database.
        #expect(try await store.search(query: "lobat", limit: 20).taxa.map(\.name) == ["Lobatae"])
        #expect(try await searchedInMemory(store, "lobat") == nil)
        #expect(try await searchedInMemory(store, "inatur") == nil)
        #expect(try await searchedInMemory(store, "   ") == nil)
        #expect(try await searchedInMemory(store, "al\0ba") == nil)

        let before = try await store.dataVersion()
        var species = SpeciesPatch()
        species.scientificName = .value("zyxmemoriana")
        _ = try await store.createSpecies(species)
        #expect(try await searchedInMemory(store, "zyxmemori") == nil)
        let found = try await store.searchDocument(query: "zyxmemori", limit: 20)
        #expect(try await searchedInMemory(store, "zyxmemori") == found)
        #expect(store.searchDocumentInMemory(query: "zyxmemori", limit: 20, at: before) == nil)
        #expect(try await store.search(query: "zyxmemori", limit: 20).species.map(\.scientificName) == ["zyxmemoriana"])
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
