import Foundation
import GRDB
import OakModels
import OakStore
import OakStoreKit

/// The database schema: the layout of existing `oak_compendium.db` files, migrated forward in place.
/// Migrations add tables, columns, indexes and triggers, and write lower-case note ids; they never drop data
/// (v11 drops only the derived full-text indexes of earlier versions).
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
        // v3, v6 and v8 built full-text indexes that v11 replaced by search in memory; a new file skips them.
        migrator.registerMigration("v3 full-text search") { _ in }
        migrator.registerMigration("v4 api tokens") { db in
            try db.execute(
                sql: """
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
        migrator.registerMigration("v6 substring search") { _ in }
        migrator.registerMigration("v7 standard source types") { db in
            try db.execute(sql: standardSourceTypes)
        }
        migrator.registerMigration("v8 search documents per source") { _ in }
        migrator.registerMigration("v9 taxonomy indexes") { db in
            // A taxon's species count (in lists, details and search results) reads these, not every species.
            try db.execute(
                sql: TaxonLevel.allCases.map {
                    "CREATE INDEX IF NOT EXISTS oak_entries_\($0.rawValue) ON oak_entries(\($0.rawValue));"
                }.joined(separator: "\n"))
        }
        migrator.registerMigration("v10 lean note logging") { db in
            try db.execute(sql: leanNoteLogging)
        }
        migrator.registerMigration("v11 search in memory") { db in
            try db.execute(sql: searchInMemory)
        }
        migrator.registerMigration("v12 tombstone index") { db in
            try db.execute(sql: tombstonesOnlyIndex)
        }
        migrator.registerMigration("v13 note log entries by row") { db in
            try logNotesByRow(db)
        }
        migrator.registerMigration("v14 field times") { db in
            try db.execute(sql: addFieldTimes)
        }
        return migrator
    }

    /// When each note field of a row was last written, for the sync rule's merge field by field (`TimedFields`,
    /// `FieldTimesJSON`); NULL, as every existing row has it, means every field was written at `updated_at`.
    static let addFieldTimes = "ALTER TABLE species_sources ADD COLUMN field_times TEXT"

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
        try db.execute(
            sql: """
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
                sql: "UPDATE species_sources SET uuid = ? WHERE id = ?", arguments: [UUID().wireString, id])
        }
        try db.execute(
            sql: """
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

    /// The change log's columns (v2; v13 adds `note_row`).
    static let changeLogColumns = """
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        entity TEXT NOT NULL,
        entity_key TEXT NOT NULL,
        op TEXT NOT NULL CHECK (op IN ('upsert', 'delete')),
        changed_at TEXT NOT NULL,
        -- For a tombstone: when the delete happened (the client's time for a pushed delete).
        deleted_at TEXT
        """

    /// The change log: one row per entity key, its sequence number raised on every change.
    /// Triggers write it, so every mutation (any route, cascades, imports, even older tools writing
    /// the file directly) is logged in the same transaction as the data.
    static func createChangeLog(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE change_log (
                    \(changeLogColumns),
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
            let insert = table == "species_sources" ? fillAndLogInsertedRow : log("NEW", "upsert")
            try db.execute(sql: loggingTriggers(table: table, key: key, upsert: { log($0, "upsert") }, delete: { log($0, "delete") }, insert: insert))
        }
    }

    /// SQL creating the triggers that log a table's changes: `upsert` of a row (`NEW`) updated, `delete` of a row
    /// (`OLD`) deleted or whose key (SQL, given the row) changed, and `insert`, the SQL run for an inserted row.
    static func loggingTriggers(
        table: String, key: (String) -> String, upsert: (String) -> String, delete: (String) -> String, insert: String, insertWhen: String = "1"
    ) -> String {
        """
        CREATE TRIGGER \(table)_logged_update AFTER UPDATE ON \(table) WHEN \(key("NEW")) IS NOT NULL BEGIN
            \(upsert("NEW"))
        END;
        CREATE TRIGGER \(table)_logged_rekey AFTER UPDATE ON \(table) WHEN \(key("OLD")) IS NOT \(key("NEW")) AND \(key("OLD")) IS NOT NULL BEGIN
            \(delete("OLD"))
        END;
        CREATE TRIGGER \(table)_logged_delete AFTER DELETE ON \(table) WHEN \(key("OLD")) IS NOT NULL BEGIN
            \(delete("OLD"))
        END;
        CREATE TRIGGER \(table)_logged_insert AFTER INSERT ON \(table) WHEN \(insertWhen) BEGIN
            \(insert)
        END;
        """
    }

    /// The trigger that lowers an inserted upper-case note id. SQLite runs the newest trigger first, and this
    /// one has to run before the insert is logged, so it is created after the logging triggers (again in v10).
    static let lowercaseInsertedID = """
        CREATE TRIGGER species_sources_lowercase_uuid_insert AFTER INSERT ON species_sources WHEN NEW.uuid <> lower(NEW.uuid) BEGIN
            UPDATE species_sources SET uuid = lower(NEW.uuid) WHERE id = NEW.id;
        END;
        """

    /// SQL of a change-log entry: the key's entry replaced by one of `op` (`key` is SQL, of `NEW` or `OLD`).
    /// From v13 (`byRow`) only entries without a note row are kept by key, and a note's upsert names its row
    /// (`noteRow`, SQL).
    static func logChange(entity: String, key: String, op: String, byRow: Bool = false, noteRow: String = "NULL") -> String {
        """
        DELETE FROM change_log WHERE entity = '\(entity)' AND entity_key = \(key)\(byRow ? " AND note_row IS NULL" : "");
        INSERT INTO change_log(entity, entity_key, op, changed_at, deleted_at\(byRow ? ", note_row" : ""))
            VALUES ('\(entity)', \(key), '\(op)', \(now), \(op == "delete" ? now : "NULL")\(byRow ? ", \(noteRow)" : ""));
        """
    }

    /// A source row inserted (`NEW`) without an id or timestamps gets them, and the row is logged under its id
    /// as it stands after every insert trigger (the lower-casing of v5 too).
    static let fillAndLogInsertedRow = """
        \(fillInsertedRow)
        \(logChange(entity: "notes", key: "(SELECT uuid FROM species_sources WHERE id = NEW.id)", op: "upsert"))
        """

    /// SQL giving an inserted row (`NEW`) the id and timestamps it lacks.
    static let fillInsertedRow = """
        UPDATE species_sources SET uuid = COALESCE(uuid, \(randomUUID)),
            created_at = COALESCE(created_at, \(now)), updated_at = COALESCE(updated_at, \(now))
            WHERE id = NEW.id AND (uuid IS NULL OR created_at IS NULL OR updated_at IS NULL);
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

    /// SQL: whether an update of a species (`OLD`, `NEW`) changed its taxonomy.
    private static let taxonomyChanged = """
        OLD.subgenus IS NOT NEW.subgenus OR OLD.section IS NOT NEW.section
            OR OLD.subsection IS NOT NEW.subsection OR OLD.complex IS NOT NEW.complex
        """

    /// A note shows its species' taxonomy, so a taxonomy change is a change of each of its notes.
    static let taxonomyChangesNotes = """
        CREATE TRIGGER oak_entries_taxonomy_changes_notes AFTER UPDATE OF subgenus, section, subsection, complex ON oak_entries
        WHEN \(taxonomyChanged)
        BEGIN
            DELETE FROM change_log WHERE entity = 'notes'
                AND entity_key IN (SELECT uuid FROM species_sources WHERE scientific_name = NEW.scientific_name);
            INSERT INTO change_log(entity, entity_key, op, changed_at)
                SELECT 'notes', uuid, 'upsert', \(now) FROM species_sources WHERE scientific_name = NEW.scientific_name AND uuid IS NOT NULL;
        END;
        """

    // MARK: v11

    /// Search runs in memory (`SpeciesSearchIndex`): drops the full-text indexes of v3, v6 and v8 and their
    /// triggers (derived data, no row of the compendium), and keeps the listing version with triggers of its
    /// own. Keeping FTS5 indexes current would be most of a pushed note's cost (see BENCHMARKS.md,
    /// "Server round 2", items 1, 2 and 6).
    static let searchInMemory = """
        DROP TRIGGER IF EXISTS oak_entries_indexed_insert;
        DROP TRIGGER IF EXISTS oak_entries_indexed_update;
        DROP TRIGGER IF EXISTS oak_entries_indexed_delete;
        DROP TRIGGER IF EXISTS species_sources_indexed_insert;
        DROP TRIGGER IF EXISTS species_sources_indexed_update;
        DROP TRIGGER IF EXISTS species_sources_indexed_delete;
        DROP TRIGGER IF EXISTS oak_entries_searched_insert;
        DROP TRIGGER IF EXISTS oak_entries_searched_update;
        DROP TRIGGER IF EXISTS oak_entries_searched_delete;
        DROP TRIGGER IF EXISTS species_sources_searched_insert;
        DROP TRIGGER IF EXISTS species_sources_searched_update;
        DROP TRIGGER IF EXISTS species_sources_searched_delete;
        DROP TRIGGER IF EXISTS species_sources_listed_insert;
        DROP TRIGGER IF EXISTS species_sources_listed_delete;
        DROP TABLE IF EXISTS species_fts;
        DROP TABLE IF EXISTS species_trigram;
        DROP TABLE IF EXISTS search_words;
        DROP TABLE IF EXISTS search_trigrams;
        DROP TABLE IF EXISTS species_search_keys;
        INSERT OR IGNORE INTO sync_state(key, value) VALUES ('listing_version', '0');
        CREATE TRIGGER species_sources_listed_insert AFTER INSERT ON species_sources BEGIN
            \(bumpListingVersion)
        END;
        CREATE TRIGGER species_sources_listed_update AFTER UPDATE OF local_names, scientific_name ON species_sources
        WHEN OLD.local_names IS NOT NEW.local_names OR OLD.scientific_name IS NOT NEW.scientific_name BEGIN
            \(bumpListingVersion)
        END;
        CREATE TRIGGER species_sources_listed_delete AFTER DELETE ON species_sources BEGIN
            \(bumpListingVersion)
        END;
        """

    /// SQL that moves the listing version (`SQLiteStore.listingVersion`).
    private static let bumpListingVersion =
        "UPDATE sync_state SET value = CAST(value AS INTEGER) + 1 WHERE key = 'listing_version';"

    // MARK: v12

    /// The index that finds tombstones by time (compaction) holds tombstones only: every upsert, most of
    /// the change log, wrote an entry into it that nothing read (a fifth of a note insert's own SQLite time).
    static let tombstonesOnlyIndex = """
        DROP INDEX IF EXISTS change_log_tombstones;
        CREATE INDEX change_log_tombstones ON change_log(changed_at) WHERE op = 'delete';
        """

    // MARK: v13

    /// A note's upsert in the change log is found by its row (`note_row`: its `species_sources.id`), not by its
    /// id. Note ids are random, so every note a push added wrote an entry into a random page of the log's key
    /// index (a third of the pages a push wrote, every one synced); rows are numbered in order, so the new notes
    /// of a batch share a page or two of the row index. The key index keeps every other entry: tombstones (by
    /// note id), species, taxa and sources. `entity_key` is still each entry's key, so readers of the log are
    /// unchanged; what looks a note's upsert up goes by row (`StoreSQL.noteSelect`, the pull and push queries).
    /// SQLite cannot drop a table's constraint, so the log is copied into a new table, its sequence kept.
    static func logNotesByRow(_ db: Database) throws {
        let head = try SQLiteStore.changeLogVersion(db)
        let triggers = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%change_log%'")
        for trigger in triggers { try db.execute(sql: "DROP TRIGGER \"\(trigger)\"") }
        try db.execute(
            sql: """
                CREATE TABLE change_log_by_row (
                    \(changeLogColumns),
                    -- For a note's upsert: the note's row (species_sources.id); NULL for every other entry.
                    note_row INTEGER
                );
                INSERT INTO change_log_by_row(seq, entity, entity_key, op, changed_at, deleted_at, note_row)
                    SELECT c.seq, c.entity, c.entity_key, c.op, c.changed_at, c.deleted_at, \(noteRowOfEntry) FROM change_log c ORDER BY c.seq;
                DROP TABLE change_log;
                ALTER TABLE change_log_by_row RENAME TO change_log;
                CREATE UNIQUE INDEX change_log_key ON change_log(entity, entity_key) WHERE note_row IS NULL;
                CREATE UNIQUE INDEX change_log_note_row ON change_log(note_row) WHERE note_row IS NOT NULL;
                \(tombstonesOnlyIndex)
                """)
        // The copy's sequence starts at its last entry; a compacted newest tombstone may have been later.
        try keepChangeLogSequence(db, atLeast: head)
        for (table, entity, key) in loggedTables where table != "species_sources" {
            let log = { (row: String, op: String) in logChange(entity: entity, key: key(row), op: op, byRow: true) }
            try db.execute(
                sql: loggingTriggers(table: table, key: key, upsert: { log($0, "upsert") }, delete: { log($0, "delete") }, insert: log("NEW", "upsert")))
        }
        // Created after the lower-casing triggers, these run before them (SQLite runs the newest first): a row
        // written with an upper-case id is logged as written, then re-keyed, and its upsert ends under the
        // lower-case id either way.
        try db.execute(
            sql: """
                \(loggingTriggers(
                    table: "species_sources", key: { "\($0).uuid" }, upsert: { logNoteUpsert($0, rows: ["OLD.id", "NEW.id"]) },
                    delete: logNoteTombstone, insert: logNoteUpsert("NEW", rows: ["NEW.id"]), insertWhen: insertedComplete))
                CREATE TRIGGER species_sources_filled_insert AFTER INSERT ON species_sources WHEN NOT \(insertedComplete) BEGIN
                    \(fillInsertedRow)
                    \(logNoteUpsert("NEW", id: "(SELECT uuid FROM species_sources WHERE id = NEW.id)", rows: ["NEW.id"]))
                END;
                CREATE TRIGGER oak_entries_taxonomy_changes_notes AFTER UPDATE OF subgenus, section, subsection, complex ON oak_entries
                WHEN \(taxonomyChanged)
                BEGIN
                    DELETE FROM change_log WHERE note_row IN (SELECT id FROM species_sources WHERE scientific_name = NEW.scientific_name);
                    INSERT INTO change_log(entity, entity_key, op, changed_at, note_row)
                        SELECT 'notes', uuid, 'upsert', \(now), id FROM species_sources WHERE scientific_name = NEW.scientific_name AND uuid IS NOT NULL;
                END;
                """)
    }

    /// Raises the change log's sequence to `head` if it is lower (or has none), so no number up to `head` is
    /// given again: a cursor may have seen it.
    static func keepChangeLogSequence(_ db: Database, atLeast head: Int64) throws {
        try db.execute(sql: "UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = 'change_log'", arguments: [head])
        if db.changesCount == 0 { try db.execute(sql: "INSERT INTO sqlite_sequence(name, seq) VALUES ('change_log', ?)", arguments: [head]) }
    }

    /// SQL: the `note_row` of a change-log entry `c` (v13): its note's row for a note's upsert, else NULL.
    static let noteRowOfEntry =
        "CASE WHEN c.entity = 'notes' AND c.op = 'upsert' THEN (SELECT id FROM species_sources WHERE uuid = c.entity_key) END"

    /// SQL logging a note's upsert (v13): the entries of its row (`rows`, SQL: the row's id before and after an
    /// update) and any tombstone of its id (`id`, SQL) replaced by one upsert under its id and row.
    static func logNoteUpsert(_ row: String, id: String? = nil, rows: [String]) -> String {
        """
        DELETE FROM change_log WHERE note_row IN (\(rows.joined(separator: ", ")));
        \(logChange(entity: "notes", key: id ?? "\(row).uuid", op: "upsert", byRow: true, noteRow: "\(row).id"))
        """
    }

    /// SQL logging the delete of a note's id (v13; `row` is `OLD`): its upsert, if still under that id, and any
    /// earlier tombstone replaced by a tombstone.
    static func logNoteTombstone(_ row: String) -> String {
        """
        DELETE FROM change_log WHERE note_row = \(row).id AND entity_key = \(row).uuid;
        \(logChange(entity: "notes", key: "\(row).uuid", op: "delete", byRow: true))
        """
    }
}
