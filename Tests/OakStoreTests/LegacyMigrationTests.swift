import Foundation
import GRDB
import OakModels
import OakStore
import OakTestBasics
import OakTestSupport
import Testing

@testable import OakStoreSQLite

/// Creates a database file in the layout of the original `oak_compendium.db` (no sync columns, no
/// bark/twigs/buds split), with a little data, as existing users have it.
func makeLegacyDatabase() throws -> String {
    let path = temporaryDatabasePath("oak-legacy", file: "oak_compendium.db")
    let queue = try DatabaseQueue(path: path)
    try queue.write { db in
        try db.execute(
            sql: """
                CREATE TABLE taxa (name TEXT NOT NULL, level TEXT NOT NULL CHECK(level IN ('subgenus', 'section', 'subsection', 'complex')),
                    parent TEXT, author TEXT, PRIMARY KEY (name, level));
                CREATE TABLE sources (id INTEGER PRIMARY KEY AUTOINCREMENT, source_type TEXT NOT NULL, name TEXT NOT NULL,
                    description TEXT, author TEXT, year INTEGER, url TEXT, isbn TEXT, doi TEXT, notes TEXT, license TEXT, license_url TEXT);
                CREATE TABLE oak_entries (scientific_name TEXT PRIMARY KEY, author TEXT, is_hybrid INTEGER NOT NULL DEFAULT 0,
                    conservation_status TEXT, subgenus TEXT, section TEXT, subsection TEXT, complex TEXT, parent1 TEXT, parent2 TEXT,
                    hybrids TEXT, closely_related_to TEXT, subspecies_varieties TEXT, synonyms TEXT, external_links TEXT);
                CREATE TABLE species_sources (id INTEGER PRIMARY KEY AUTOINCREMENT, scientific_name TEXT NOT NULL, source_id INTEGER NOT NULL,
                    local_names TEXT, range TEXT, growth_habit TEXT, leaves TEXT, flowers TEXT, fruits TEXT, bark_twigs_buds TEXT,
                    hardiness_habitat TEXT, miscellaneous TEXT, url TEXT, is_preferred INTEGER NOT NULL DEFAULT 0,
                    FOREIGN KEY (scientific_name) REFERENCES oak_entries(scientific_name) ON DELETE CASCADE,
                    FOREIGN KEY (source_id) REFERENCES sources(id), UNIQUE(scientific_name, source_id));
                CREATE TABLE import_metadata (key TEXT PRIMARY KEY, value TEXT);

                INSERT INTO taxa VALUES ('Quercus', 'subgenus', NULL, 'L.'), ('Quercus', 'section', 'Quercus', NULL);
                INSERT INTO sources (id, source_type, name, url) VALUES (1, 'website', 'iNaturalist (legacy)', 'https://inaturalist.org'),
                    (2, 'website', 'Oaks of the World', 'https://oaksoftheworld.fr'), (3, 'personal', 'My notes', NULL);
                INSERT INTO oak_entries (scientific_name, author, is_hybrid, conservation_status, subgenus, section, hybrids, synonyms, external_links)
                    VALUES ('alba', 'L.', 0, 'LC', 'Quercus', 'Quercus', '["bebbiana"]', '["Quercus alba var. repanda Michx."]',
                            '[{"name": "Wikipedia", "url": "https://en.wikipedia.org/wiki/Quercus_alba"}]'),
                           ('macrocarpa', 'Michx.', 0, 'LC', 'Quercus', 'Quercus', '["bebbiana"]', NULL, NULL),
                           ('bebbiana', 'C.K.Schneid.', 1, NULL, 'Quercus', 'Quercus', NULL, NULL, NULL);
                UPDATE oak_entries SET parent1 = 'alba', parent2 = 'macrocarpa' WHERE scientific_name = 'bebbiana';
                INSERT INTO species_sources (scientific_name, source_id, local_names, leaves, bark_twigs_buds, is_preferred)
                    VALUES ('alba', 3, '["white oak"]', 'deeply lobed', 'pale, scaly', 1),
                           ('alba', 2, '["chêne blanc"]', 'lobes arrondis', NULL, 0),
                           ('macrocarpa', 3, '["bur oak"]', 'fiddle-shaped', NULL, 1);
                INSERT INTO import_metadata VALUES ('last_import', '2025-01-01');
                """)
    }
    return path
}

@Suite("Opening an existing oak_compendium.db")
struct LegacyMigrationTests {
    @Test("an existing database is migrated in place without losing data")
    func migratesInPlace() async throws {
        let path = try makeLegacyDatabase()
        let store = try SQLiteStore(path: path)
        let alba = try await store.species(named: "alba")
        #expect(alba.hybrids == ["bebbiana"])
        #expect(alba.synonyms == ["Quercus alba var. repanda Michx."])
        #expect(alba.externalLinks.count == 1)
        let albaSources = try await store.speciesSources(of: "alba")
        #expect(albaSources.map(\.sourceId) == [3, 2])
        #expect(albaSources[0].localNames == ["white oak"])
        #expect(albaSources[0].leaves == "deeply lobed")
        // Standard sources that exist keep their data; the starter dataset is not added to a database with species.
        #expect(try await store.source(id: 1).name == "iNaturalist (legacy)")
        #expect(try await store.listSpecies(filter: SpeciesFilter(), limit: 100, offset: 0).pagination.total == 3)
        let legacy = try store.read { db in
            (
                try String.fetchOne(db, sql: "SELECT bark_twigs_buds FROM species_sources WHERE leaves = 'deeply lobed'"),
                try String.fetchOne(db, sql: "SELECT value FROM import_metadata WHERE key = 'last_import'")
            )
        }
        #expect(legacy.0 == "pale, scaly")
        #expect(legacy.1 == "2025-01-01")
    }

    @Test("migration adds the new columns and tables")
    func addsColumns() async throws {
        let path = try makeLegacyDatabase()
        let store = try SQLiteStore(path: path)
        let (columns, tables) = try store.read { db in
            (
                Set(try db.columns(in: "species_sources").map(\.name)),
                Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
            )
        }
        #expect(columns.isSuperset(of: ["uuid", "created_at", "updated_at", "bark", "twigs", "buds", "bark_twigs_buds"]))
        #expect(tables.isSuperset(of: ["change_log", "taxa", "import_metadata"]))
        #expect(tables.isDisjoint(with: ["species_fts", "species_trigram", "search_words", "search_trigrams"]))
    }

    @Test("existing rows get note UUIDs once; they are stable across restarts and re-migrations")
    func stableUUIDs() async throws {
        let path = try makeLegacyDatabase()
        let first = try await SQLiteStore(path: path).speciesSources(of: "alba").map(\.uuid)
        #expect(Set(first).count == 2)
        let second = try await SQLiteStore(path: path).speciesSources(of: "alba").map(\.uuid)
        #expect(first == second)
    }

    @Test("existing data is searchable and its hybrids protect their parents")
    func searchAndConstraintsOnLegacyData() async throws {
        let path = try makeLegacyDatabase()
        let store = try SQLiteStore(path: path)
        #expect(try await store.searchSpecies(query: "bur", limit: 10).map(\.scientificName) == ["macrocarpa"])
        #expect(try await store.searchSpecies(query: "chene", limit: 10).map(\.scientificName) == ["alba"])
        await #expect(throws: OakError.self) { try await store.deleteSpecies(named: "alba") }
    }

    @Test("existing rows are in the change log so a first pull sees them")
    func changeLogBackfilled() async throws {
        let path = try makeLegacyDatabase()
        let store = try SQLiteStore(path: path)
        let entities = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT entity, COUNT(*) AS n FROM change_log GROUP BY entity")
                .reduce(into: [String: Int]()) { $0[$1["entity"]] = $1["n"] }
        }
        #expect(entities["species"] == 3)
        #expect(entities["notes"] == 3)
        #expect(entities["sources"] == 3)
        #expect(entities["taxa"] == 2)
    }

    @Test("rows written by older tools without a UUID get one and are logged")
    func olderToolsWritingDirectly() async throws {
        let path = try makeLegacyDatabase()
        _ = try SQLiteStore(path: path)
        let queue = try DatabaseQueue(path: path)
        let uuid = try await queue.write { db -> String? in
            try db.execute(sql: "INSERT INTO species_sources (scientific_name, source_id, leaves) VALUES ('macrocarpa', 2, 'x')")
            return try String.fetchOne(db, sql: "SELECT uuid FROM species_sources WHERE scientific_name = 'macrocarpa' AND source_id = 2")
        }
        let value = try #require(uuid)
        #expect(UUID(uuidString: value) != nil)
        let logged = try await queue.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM change_log WHERE entity = 'notes' AND entity_key = ?", arguments: [value])
        }
        #expect(logged == 1)
    }

    @Test("note ids written in upper case (by older files or other tools) are stored in lower case, so routes and sync find them")
    func upperCaseNoteIDs() async throws {
        let path = try makeLegacyDatabase()
        // A file from before lower-casing, with an id another tool wrote in upper case.
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v4 api tokens")
        let upper = try await queue.write { db -> String in
            try db.execute(sql: "UPDATE species_sources SET uuid = upper(uuid) WHERE scientific_name = 'macrocarpa'")
            return try String.fetchOne(db, sql: "SELECT uuid FROM species_sources WHERE scientific_name = 'macrocarpa'")!
        }
        let store = try SQLiteStore(path: path)
        let note = try await store.note(id: try #require(UUID(uuidString: upper)))
        #expect(note.scientificName == "macrocarpa")

        // Written in upper case after the migration, by a tool writing the file directly.
        let written = UUID()
        try await queue.write { db in
            try db.execute(
                sql: "INSERT INTO species_sources (uuid, scientific_name, source_id, leaves) VALUES (?, 'macrocarpa', 2, 'x')",
                arguments: [written.uuidString])
        }
        #expect(try await store.note(id: written).fields.leaf == "x")
        let logged = try await queue.read { db in
            try String.fetchAll(
                db, sql: "SELECT op || ' ' || entity_key FROM change_log WHERE entity = 'notes' AND upper(entity_key) IN (?, ?) ORDER BY seq",
                arguments: [upper, written.uuidString])
        }
        #expect(
            logged == [
                "delete \(upper)", "upsert \(upper.lowercased())", "delete \(written.uuidString)", "upsert \(written.uuidString.lowercased())",
            ])
    }
}

@Suite("Migrations that rewrite values")
struct RewritingMigrationTests {
    @Test(
        "v13, on a file at v12 with edits, a delete and a compacted newest entry: the change log keeps every entry and its sequence, notes keep their versions, and later writes log by row"
    )
    func noteLogEntriesByRow() async throws {
        let path = try makeLegacyDatabase()
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v12 tombstone index")
        let logQuery = "SELECT seq, entity, entity_key, op, changed_at, deleted_at FROM change_log ORDER BY seq"
        let headQuery = "SELECT seq FROM sqlite_sequence WHERE name = 'change_log'"
        let (before, head, upserts) = try queue.write { db in
            try db.execute(
                sql: """
                    UPDATE species_sources SET leaves = 'lobes ronds' WHERE scientific_name = 'alba' AND source_id = 2;
                    DELETE FROM species_sources WHERE scientific_name = 'macrocarpa';
                    UPDATE oak_entries SET author = 'L. (1753)' WHERE scientific_name = 'alba';
                    DELETE FROM change_log WHERE seq = (SELECT MAX(seq) FROM change_log);
                    """)
            let upserts = try Row.fetchAll(db, sql: "SELECT entity_key, seq FROM change_log WHERE entity = 'notes' AND op = 'upsert'")
                .reduce(into: [String: Int64]()) { $0[$1["entity_key"]] = $1["seq"] }
            return (try Row.fetchAll(db, sql: logQuery), try Int64.fetchOne(db, sql: headQuery), upserts)
        }
        try queue.close()

        let store = try SQLiteStore(path: path)
        let (after, headAfter, unlinked) = try store.read { db in
            (
                try Row.fetchAll(db, sql: logQuery), try Int64.fetchOne(db, sql: headQuery),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM change_log WHERE entity = 'notes' AND op = 'upsert' AND note_row IS NULL")
            )
        }
        #expect(after == before)
        #expect(headAfter == head)
        #expect(unlinked == 0)
        #expect(upserts.count == 2)
        for (key, version) in upserts {
            #expect(try await store.note(id: try #require(UUID(uuidString: key))).version == version)
        }

        let (key, _) = try #require(upserts.first)
        let id = try #require(UUID(uuidString: key))
        var fields = try await store.note(id: id).fields
        fields.leaf = "edited after v13"
        let edited = try await store.updateNote(id: id, with: NoteInput(fields: NoteFieldsPatch(replacingWith: fields)), expectedVersion: nil)
        #expect(edited.version == (head ?? 0) + 1)
        try await store.deleteNote(id: id, expectedVersion: nil)
        let entries = try store.read { db in
            try String.fetchAll(
                db, sql: "SELECT op || ' ' || (note_row IS NOT NULL) FROM change_log WHERE entity = 'notes' AND entity_key = ? ORDER BY seq",
                arguments: [key])
        }
        #expect(entries == ["delete 0"])
    }

    @Test(
        "v7, on a copy: the standard source types this server once wrote (website, personal) become the original clients' (Website, Personal Observation); sources others wrote keep theirs"
    )
    func standardSourceTypes() async throws {
        let original = try makeLegacyDatabase()
        try await DatabaseQueue(path: original).write { db in
            try db.execute(
                sql: """
                    UPDATE sources SET name = 'iNaturalist', description = 'Community science platform for recording and sharing observations' WHERE id = 1;
                    UPDATE sources SET name = 'Oak Compendium', description = 'Personal field observations' WHERE id = 3;
                    INSERT INTO sources (id, source_type, name) VALUES (4, 'website', 'A site of my own');
                    """)
        }
        let copy = original + ".copy.db"
        try FileManager.default.copyItem(atPath: original, toPath: copy)
        let store = try SQLiteStore(path: copy)
        #expect(try await store.source(id: 1).sourceType == "Website")
        #expect(try await store.source(id: 3).sourceType == "Personal Observation")
        // Source 2 is the legacy file's own row (its description is not this server's), and 4 is the user's.
        #expect(try await store.source(id: 2).sourceType == "website")
        #expect(try await store.source(id: 4).sourceType == "website")
        let untouched = try await DatabaseQueue(path: original).read { db in
            try String.fetchAll(db, sql: "SELECT source_type FROM sources ORDER BY id")
        }
        #expect(untouched == ["website", "website", "personal", "website"])
    }

    @Test("6 legacy list columns in an old file (null, empty, comma text) read as lists and are not rewritten by opening it")
    func legacyListsNotRewritten() async throws {
        let path = try makeLegacyDatabase()
        try await DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: """
                    UPDATE oak_entries SET synonyms = 'null', closely_related_to = '', subspecies_varieties = 'a, b' WHERE scientific_name = 'alba';
                    UPDATE species_sources SET local_names = 'null' WHERE scientific_name = 'macrocarpa';
                    """)
        }
        let store = try SQLiteStore(path: path)
        let alba = try await store.species(named: "alba")
        #expect(alba.synonyms == [])
        #expect(alba.closelyRelatedTo == [])
        #expect(alba.subspeciesVarieties == ["a", "b"])
        #expect(try await store.speciesSources(of: "macrocarpa").first?.localNames == [])
        let stored = try DatabaseQueue(path: path).read { db in
            try Row.fetchOne(db, sql: "SELECT synonyms, closely_related_to, subspecies_varieties FROM oak_entries WHERE scientific_name = 'alba'")
        }
        #expect(stored?["synonyms"] == "null")
        #expect(stored?["closely_related_to"] == "")
        #expect(stored?["subspecies_varieties"] == "a, b")
    }
}
