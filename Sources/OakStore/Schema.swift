import Foundation
import GRDB
import OakModels

/// The database schema: the layout of existing `oak_compendium.db` files, migrated forward in place.
/// Migrations only add tables, columns, indexes and triggers, and write lower-case note ids; they never drop data.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1 compendium tables") { db in
            try createLegacyTables(db)
        }
        migrator.registerMigration("v2 sync columns and change log") { db in
            try addSyncColumns(db)
            try createChangeLog(db)
            try db.execute(sql: taxonomyChangesNotes)
        }
        migrator.registerMigration("v3 full-text search") { db in
            try createSearchIndex(db)
        }
        migrator.registerMigration("v4 api tokens") { db in
            try db.execute(sql: """
                CREATE TABLE api_tokens (
                    name TEXT PRIMARY KEY,
                    token_hash TEXT NOT NULL UNIQUE,
                    abilities TEXT NOT NULL,
                    created_at TEXT NOT NULL,
                    last_used_at TEXT
                )
                """)
        }
        migrator.registerMigration("v5 lower-case note ids") { db in
            try db.execute(sql: lowercaseNoteIDs)
        }
        migrator.registerMigration("v6 substring search") { db in
            try addSubstringSearch(db)
        }
        migrator.registerMigration("v7 standard source types") { db in
            try db.execute(sql: standardSourceTypes)
        }
        migrator.registerMigration("v8 search documents per source") { db in
            try SearchDocuments.replaceSpeciesDocuments(db)
        }
        migrator.registerMigration("v9 taxonomy indexes") { db in
            // A taxon's species count (in lists, details and search results) was a scan of every species.
            try db.execute(sql: TaxonLevel.allCases.map {
                "CREATE INDEX IF NOT EXISTS oak_entries_\($0.rawValue) ON oak_entries(\($0.rawValue));"
            }.joined(separator: "\n"))
        }
        migrator.registerMigration("v10 lean note logging") { db in
            try db.execute(sql: leanNoteLogging)
        }
        return migrator
    }

    /// SQL for the current time as stored: RFC 3339 UTC with milliseconds.
    static let now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

    // MARK: v1

    /// Columns every table must have, with the type used when an older file lacks them.
    static let requiredColumns: [String: [(name: String, type: String)]] = [
        "oak_entries": [
            ("author", "TEXT"), ("is_hybrid", "INTEGER NOT NULL DEFAULT 0"), ("conservation_status", "TEXT"),
            ("subgenus", "TEXT"), ("section", "TEXT"), ("subsection", "TEXT"), ("complex", "TEXT"),
            ("parent1", "TEXT"), ("parent2", "TEXT"), ("hybrids", "TEXT"), ("closely_related_to", "TEXT"),
            ("subspecies_varieties", "TEXT"), ("synonyms", "TEXT"), ("external_links", "TEXT"),
        ],
        "taxa": [("parent", "TEXT"), ("author", "TEXT"), ("notes", "TEXT"), ("links", "TEXT")],
        "sources": [
            ("description", "TEXT"), ("author", "TEXT"), ("year", "INTEGER"), ("url", "TEXT"), ("isbn", "TEXT"),
            ("doi", "TEXT"), ("notes", "TEXT"), ("license", "TEXT"), ("license_url", "TEXT"),
        ],
        "species_sources": [
            ("local_names", "TEXT"), ("range", "TEXT"), ("growth_habit", "TEXT"), ("leaves", "TEXT"),
            ("flowers", "TEXT"), ("fruits", "TEXT"), ("bark_twigs_buds", "TEXT"), ("hardiness_habitat", "TEXT"),
            ("miscellaneous", "TEXT"), ("url", "TEXT"), ("is_preferred", "INTEGER NOT NULL DEFAULT 0"),
            ("bark", "TEXT"), ("twigs", "TEXT"), ("buds", "TEXT"),
        ],
    ]

    static func createLegacyTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS taxa (
                name TEXT NOT NULL,
                level TEXT NOT NULL CHECK (level IN ('subgenus', 'section', 'subsection', 'complex')),
                parent TEXT, author TEXT, notes TEXT, links TEXT,
                PRIMARY KEY (name, level)
            );
            CREATE TABLE IF NOT EXISTS sources (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                source_type TEXT NOT NULL, name TEXT NOT NULL, description TEXT, author TEXT, year INTEGER,
                url TEXT, isbn TEXT, doi TEXT, notes TEXT, license TEXT, license_url TEXT
            );
            CREATE TABLE IF NOT EXISTS oak_entries (
                scientific_name TEXT PRIMARY KEY,
                author TEXT, is_hybrid INTEGER NOT NULL DEFAULT 0, conservation_status TEXT,
                subgenus TEXT, section TEXT, subsection TEXT, complex TEXT, parent1 TEXT, parent2 TEXT,
                hybrids TEXT, closely_related_to TEXT, subspecies_varieties TEXT, synonyms TEXT, external_links TEXT
            );
            CREATE TABLE IF NOT EXISTS species_sources (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                scientific_name TEXT NOT NULL REFERENCES oak_entries(scientific_name) ON DELETE CASCADE,
                source_id INTEGER NOT NULL REFERENCES sources(id),
                local_names TEXT, range TEXT, growth_habit TEXT, leaves TEXT, flowers TEXT, fruits TEXT,
                bark_twigs_buds TEXT, hardiness_habitat TEXT, miscellaneous TEXT, url TEXT,
                is_preferred INTEGER NOT NULL DEFAULT 0, bark TEXT, twigs TEXT, buds TEXT,
                UNIQUE (scientific_name, source_id)
            );
            CREATE TABLE IF NOT EXISTS import_metadata (key TEXT PRIMARY KEY, value TEXT);
            """)
        for (table, columns) in requiredColumns {
            try addMissingColumns(db, table: table, columns: columns)
        }
    }

    static func addMissingColumns(_ db: Database, table: String, columns: [(name: String, type: String)]) throws {
        let existing = Set(try db.columns(in: table).map { $0.name.lowercased() })
        for column in columns where !existing.contains(column.name) {
            try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN \(column.name) \(column.type)")
        }
    }

    // MARK: v2

    static func addSyncColumns(_ db: Database) throws {
        try addMissingColumns(
            db, table: "species_sources", columns: [("uuid", "TEXT"), ("created_at", "TEXT"), ("updated_at", "TEXT")])
        // Notes' ids are assigned once, here; the migration is recorded, so they are stable across restarts.
        let ids = try Int64.fetchAll(db, sql: "SELECT id FROM species_sources WHERE uuid IS NULL")
        for id in ids {
            try db.execute(
                sql: "UPDATE species_sources SET uuid = ? WHERE id = ?", arguments: [UUID().uuidString.lowercased(), id])
        }
        try db.execute(sql: """
            UPDATE species_sources SET created_at = COALESCE(created_at, \(now)), updated_at = COALESCE(updated_at, \(now));
            CREATE UNIQUE INDEX IF NOT EXISTS species_sources_uuid ON species_sources(uuid);
            CREATE INDEX IF NOT EXISTS species_sources_source ON species_sources(source_id);
            CREATE INDEX IF NOT EXISTS oak_entries_parent1 ON oak_entries(parent1);
            CREATE INDEX IF NOT EXISTS oak_entries_parent2 ON oak_entries(parent2);
            CREATE INDEX IF NOT EXISTS taxa_parent ON taxa(parent);
            """)
    }

    /// SQL that makes a random (version 4) UUID, for rows that older tools insert without one.
    static let randomUUID = """
        lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || \
        substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))
        """

    /// Each logged table, its sync entity name and the SQL of a row's key given `NEW` or `OLD`.
    static let loggedTables: [(table: String, entity: String, key: @Sendable (String) -> String)] = [
        ("oak_entries", "species", { "\($0).scientific_name" }),
        ("taxa", "taxa", { "\($0).level || '/' || \($0).name" }),
        ("sources", "sources", { "CAST(\($0).id AS TEXT)" }),
        ("species_sources", "notes", { "\($0).uuid" }),
    ]

    /// The change log: one row per entity key, its sequence number raised on every change.
    /// Triggers write it, so every mutation (any route, cascades, imports, even older tools writing
    /// the file directly) is logged in the same transaction as the data.
    static func createChangeLog(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE change_log (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                entity TEXT NOT NULL,
                entity_key TEXT NOT NULL,
                op TEXT NOT NULL CHECK (op IN ('upsert', 'delete')),
                changed_at TEXT NOT NULL,
                -- For a tombstone: when the delete happened (the client's time for a pushed delete).
                deleted_at TEXT,
                UNIQUE (entity, entity_key)
            );
            CREATE INDEX change_log_tombstones ON change_log(op, changed_at);
            CREATE TABLE sync_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            -- The result of every pushed change, by digest, so a re-sent change gets the same answer.
            CREATE TABLE sync_receipts (digest TEXT PRIMARY KEY, result TEXT NOT NULL, created_at TEXT NOT NULL);
            INSERT INTO sync_state(key, value) VALUES ('database_id', lower(hex(randomblob(6))));
            """)
        for (table, entity, key) in loggedTables {
            try db.execute(sql: "INSERT INTO change_log(entity, entity_key, op, changed_at) SELECT '\(entity)', \(key(table)), 'upsert', \(now) FROM \(table)")
            let log = { (row: String, op: String) in logChange(entity: entity, key: key(row), op: op) }
            try db.execute(sql: """
                CREATE TRIGGER \(table)_logged_update AFTER UPDATE ON \(table) WHEN \(key("NEW")) IS NOT NULL BEGIN
                    \(log("NEW", "upsert"))
                END;
                CREATE TRIGGER \(table)_logged_rekey AFTER UPDATE ON \(table) WHEN \(key("OLD")) IS NOT \(key("NEW")) AND \(key("OLD")) IS NOT NULL BEGIN
                    \(log("OLD", "delete"))
                END;
                CREATE TRIGGER \(table)_logged_delete AFTER DELETE ON \(table) WHEN \(key("OLD")) IS NOT NULL BEGIN
                    \(log("OLD", "delete"))
                END;
                """)
            if table == "species_sources" {
                try db.execute(sql: "CREATE TRIGGER species_sources_logged_insert AFTER INSERT ON species_sources BEGIN \(fillAndLogInsertedRow) END;")
            } else {
                try db.execute(sql: """
                    CREATE TRIGGER \(table)_logged_insert AFTER INSERT ON \(table) BEGIN
                        \(log("NEW", "upsert"))
                    END;
                    """)
            }
        }
    }

    /// The trigger that lowers an inserted upper-case note id. SQLite runs the newest trigger first, and this
    /// one has to run before the insert is logged, so it is created after the logging triggers (again in v10).
    static let lowercaseInsertedID = """
        CREATE TRIGGER species_sources_lowercase_uuid_insert AFTER INSERT ON species_sources WHEN NEW.uuid <> lower(NEW.uuid) BEGIN
            UPDATE species_sources SET uuid = lower(NEW.uuid) WHERE id = NEW.id;
        END;
        """

    /// SQL of a change-log entry: the key's row replaced by one of `op` (`key` is SQL, of `NEW` or `OLD`).
    static func logChange(entity: String, key: String, op: String) -> String {
        """
        DELETE FROM change_log WHERE entity = '\(entity)' AND entity_key = \(key);
        INSERT INTO change_log(entity, entity_key, op, changed_at, deleted_at)
            VALUES ('\(entity)', \(key), '\(op)', \(now), \(op == "delete" ? now : "NULL"));
        """
    }

    /// A source row inserted (`NEW`) without an id or timestamps gets them, and the row is logged under its id
    /// as it stands after every insert trigger (the lower-casing of v5 too).
    static let fillAndLogInsertedRow = """
        UPDATE species_sources SET uuid = COALESCE(uuid, \(randomUUID)),
            created_at = COALESCE(created_at, \(now)), updated_at = COALESCE(updated_at, \(now))
            WHERE id = NEW.id AND (uuid IS NULL OR created_at IS NULL OR updated_at IS NULL);
        \(logChange(entity: "notes", key: "(SELECT uuid FROM species_sources WHERE id = NEW.id)", op: "upsert"))
        """

    /// v10: a row inserted complete (a lower-case id and both timestamps: every row this server writes) is
    /// logged straight from `NEW`, with no update and no look-ups of the row, a fifth of a pushed note's SQL.
    /// Other rows (older tools) take the v2 path.
    static let leanNoteLogging = """
        DROP TRIGGER species_sources_logged_insert;
        CREATE TRIGGER species_sources_logged_insert AFTER INSERT ON species_sources WHEN \(insertedComplete) BEGIN
            \(logChange(entity: "notes", key: "NEW.uuid", op: "upsert"))
        END;
        CREATE TRIGGER species_sources_filled_insert AFTER INSERT ON species_sources WHEN NOT \(insertedComplete) BEGIN
            \(fillAndLogInsertedRow)
        END;
        DROP TRIGGER species_sources_lowercase_uuid_insert;
        \(lowercaseInsertedID)
        """

    /// SQL: whether the inserted row (`NEW`) has a lower-case id and both timestamps.
    private static let insertedComplete =
        "(NEW.uuid IS NOT NULL AND NEW.uuid = lower(NEW.uuid) AND NEW.created_at IS NOT NULL AND NEW.updated_at IS NOT NULL)"

    /// Note ids are compared as text, and the server writes them in lower case; other tools may not (Swift's
    /// `uuidString` is upper case), so ids written in upper case are lowered, and existing ones once. Each
    /// is logged as a re-key: a delete of the upper-case key, then an upsert of the lower-case one.
    /// Earlier versions of this server wrote the standard sources' types as `website` and `personal`; the
    /// original clients read a source's type as one of `Website`, `Book`, `Personal Observation`, … (the iOS
    /// app fails to load a source with another). Only the rows this server wrote (id, name and type as it
    /// wrote them) are rewritten; sources that users or other tools wrote are left as they are.
    static let standardSourceTypes = """
        UPDATE sources SET source_type = 'Website' WHERE source_type = 'website' AND (
            (id = 1 AND name = 'iNaturalist' AND description = 'Community science platform for recording and sharing observations')
            OR (id = 2 AND name = 'Oaks of the World' AND description = 'Reference website on the genus Quercus'));
        UPDATE sources SET source_type = 'Personal Observation' WHERE id = 3 AND source_type = 'personal'
            AND name = 'Oak Compendium' AND description = 'Personal field observations';
        """

    static let lowercaseNoteIDs = """
        \(lowercaseInsertedID)
        CREATE TRIGGER species_sources_lowercase_uuid_update AFTER UPDATE OF uuid ON species_sources WHEN NEW.uuid <> lower(NEW.uuid) BEGIN
            UPDATE species_sources SET uuid = lower(NEW.uuid) WHERE id = NEW.id;
        END;
        UPDATE species_sources SET uuid = lower(uuid) WHERE uuid <> lower(uuid);
        """

    /// A note shows its species' taxonomy, so a taxonomy change is a change of each of its notes.
    static let taxonomyChangesNotes = """
        CREATE TRIGGER oak_entries_taxonomy_changes_notes AFTER UPDATE OF subgenus, section, subsection, complex ON oak_entries
        WHEN OLD.subgenus IS NOT NEW.subgenus OR OLD.section IS NOT NEW.section
            OR OLD.subsection IS NOT NEW.subsection OR OLD.complex IS NOT NEW.complex
        BEGIN
            DELETE FROM change_log WHERE entity = 'notes'
                AND entity_key IN (SELECT uuid FROM species_sources WHERE scientific_name = NEW.scientific_name);
            INSERT INTO change_log(entity, entity_key, op, changed_at)
                SELECT 'notes', uuid, 'upsert', \(now) FROM species_sources WHERE scientific_name = NEW.scientific_name AND uuid IS NOT NULL;
        END;
        """

    // MARK: v3

    /// Names that have (or had) a row in the index, with stable integer ids: `species_fts` rows use them as rowids,
    /// so re-indexing a species is a lookup, not a scan (and VACUUM keeps INTEGER PRIMARY KEY ids).
    static let searchKey = "(SELECT id FROM species_search_keys WHERE scientific_name = %@)"

    /// The full-text indexes of species, each kept by the same triggers: `species_fts` matches words (and
    /// their starts) ignoring diacritics ("chene" finds "chêne"), `species_trigram` matches any substring
    /// ("lba" finds "alba").
    static let searchTables = ["species_fts", "species_trigram"]

    /// SQL that re-indexes one species (named by an SQL expression) in the full-text `tables`.
    static func reindexSpecies(_ name: String, in tables: [String]) -> String {
        let key = searchKey.replacingOccurrences(of: "%@", with: name)
        return "INSERT OR IGNORE INTO species_search_keys(scientific_name) SELECT scientific_name FROM oak_entries WHERE scientific_name = \(name);\n"
            + tables.map { table in
                """
                DELETE FROM \(table) WHERE rowid = \(key);
                INSERT INTO \(table)(rowid, scientific_name, synonyms, local_names)
                    SELECT k.id, e.scientific_name, COALESCE(e.synonyms, ''),
                        (SELECT COALESCE(group_concat(local_names, ' '), '') FROM species_sources s WHERE s.scientific_name = e.scientific_name)
                    FROM oak_entries e JOIN species_search_keys k ON k.scientific_name = e.scientific_name
                    WHERE e.scientific_name = \(name);
                """
            }.joined(separator: "\n")
    }

    /// SQL: whether a `local_names` value (an SQL expression) holds any name.
    static func hasNames(_ column: String) -> String { "(\(column) IS NOT NULL AND \(column) NOT IN ('', '[]'))" }

    /// An FTS5 index over scientific names, synonyms and every source's local names (v3: words).
    static func createSearchIndex(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE species_search_keys (id INTEGER PRIMARY KEY, scientific_name TEXT NOT NULL UNIQUE);
            INSERT INTO species_search_keys(scientific_name) SELECT scientific_name FROM oak_entries;
            """)
        try createSearchTable(db, "species_fts", options: "tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'")
        try createSearchTriggers(db, tables: ["species_fts"])
    }

    /// Adds the substring index beside the word index (v6), both kept by one set of triggers.
    static func addSubstringSearch(_ db: Database) throws {
        try db.execute(sql: searchTriggers.map { "DROP TRIGGER \($0);" }.joined(separator: "\n"))
        try createSearchTable(db, "species_trigram", options: "tokenize = 'trigram'")
        try createSearchTriggers(db, tables: searchTables)
    }

    /// Creates an FTS5 table of the species' searchable text, filled from the tables.
    private static func createSearchTable(_ db: Database, _ table: String, options: String) throws {
        try db.execute(sql: """
            CREATE VIRTUAL TABLE \(table) USING fts5(scientific_name, synonyms, local_names, \(options));
            INSERT INTO \(table)(rowid, scientific_name, synonyms, local_names)
                SELECT k.id, e.scientific_name, COALESCE(e.synonyms, ''),
                    (SELECT COALESCE(group_concat(local_names, ' '), '') FROM species_sources s WHERE s.scientific_name = e.scientific_name)
                FROM oak_entries e JOIN species_search_keys k ON k.scientific_name = e.scientific_name;
            """)
    }

    private static let searchTriggers = [
        "oak_entries_indexed_insert", "oak_entries_indexed_update", "oak_entries_indexed_delete",
        "species_sources_indexed_insert", "species_sources_indexed_update", "species_sources_indexed_delete",
    ]

    /// Triggers that keep the full-text `tables` current, running only when an indexed value changes.
    private static func createSearchTriggers(_ db: Database, tables: [String]) throws {
        let oldKey = searchKey.replacingOccurrences(of: "%@", with: "OLD.scientific_name")
        let deleteOld = tables.map { "DELETE FROM \($0) WHERE rowid = \(oldKey);" }.joined(separator: "\n")
        try db.execute(sql: """
            CREATE TRIGGER oak_entries_indexed_insert AFTER INSERT ON oak_entries BEGIN
                \(reindexSpecies("NEW.scientific_name", in: tables))
            END;
            CREATE TRIGGER oak_entries_indexed_update AFTER UPDATE ON oak_entries
            WHEN OLD.synonyms IS NOT NEW.synonyms OR OLD.scientific_name IS NOT NEW.scientific_name BEGIN
                \(deleteOld)
                \(reindexSpecies("NEW.scientific_name", in: tables))
            END;
            CREATE TRIGGER oak_entries_indexed_delete AFTER DELETE ON oak_entries BEGIN
                \(deleteOld)
                DELETE FROM species_search_keys WHERE scientific_name = OLD.scientific_name;
            END;
            CREATE TRIGGER species_sources_indexed_insert AFTER INSERT ON species_sources WHEN \(hasNames("NEW.local_names")) BEGIN
                \(reindexSpecies("NEW.scientific_name", in: tables))
            END;
            CREATE TRIGGER species_sources_indexed_update AFTER UPDATE OF local_names, scientific_name ON species_sources
            WHEN OLD.local_names IS NOT NEW.local_names OR OLD.scientific_name IS NOT NEW.scientific_name BEGIN
                \(reindexSpecies("OLD.scientific_name", in: tables))
                \(reindexSpecies("NEW.scientific_name", in: tables))
            END;
            CREATE TRIGGER species_sources_indexed_delete AFTER DELETE ON species_sources WHEN \(hasNames("OLD.local_names")) BEGIN
                \(reindexSpecies("OLD.scientific_name", in: tables))
            END;
            """)
    }
}
