import GRDB

/// The full-text indexes searches read (v8 layout). `search_words` matches words and their starts ignoring
/// diacritics ("chene" finds "chêne"); `search_trigrams` matches any substring ("lba" finds "alba"). Both
/// hold one document per species (its name and synonyms) and one per row of source data that has local
/// names. A document's rowid carries its species: the species' `species_search_keys` id in the high 32 bits,
/// and for a source row that row's id in the low 32 bits (0 for the species' own document). A match is read
/// as `rowid >> 32` without touching the documents, and a species' documents are one rowid range.
///
/// The same triggers keep the listing version that the read cache checks before it keeps a list or a search.
///
/// Before v8 a species had a single document with every source's local names in it, so adding one note
/// re-tokenized all of that species' names in both indexes: 90% of the time of a pushed note. Now a note
/// writes only its own names.
enum SearchDocuments {
    static let tables = ["search_words": "tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'", "search_trigrams": "tokenize = 'trigram'"]

    /// SQL: the rowid of a document, given SQL for the species' name and the source row's id (`0` for the
    /// species' own document).
    static func rowid(species name: String, row: String) -> String {
        "(((SELECT id FROM species_search_keys WHERE scientific_name = \(name)) << 32) | \(row))"
    }

    /// SQL run for each index: `statement` with `%t` standing for the table's name.
    private static func eachTable(_ statement: String) -> String {
        tables.keys.sorted().map { statement.replacingOccurrences(of: "%t", with: $0) }.joined(separator: "\n")
    }

    /// SQL that writes species' own documents (name and synonyms): of `NEW` in a trigger, or of every row of
    /// `oak_entries e` (`from`).
    private static func insertSpecies(_ row: String, from: String = "") -> String {
        eachTable("""
            INSERT INTO %t(rowid, scientific_name, synonyms, local_names)
                SELECT k.id << 32, k.scientific_name, COALESCE(\(row).synonyms, ''), '' FROM \(from) species_search_keys k
                WHERE k.scientific_name = \(row).scientific_name;
            """)
    }

    /// SQL that writes the documents of rows of source data: of `NEW` in a trigger, or of every row of
    /// `species_sources ss` (`from`).
    private static func insertSource(_ row: String, from: String = "") -> String {
        eachTable("""
            INSERT INTO %t(rowid, scientific_name, synonyms, local_names)
                SELECT \(rowid(species: "\(row).scientific_name", row: "\(row).id")), '', '', \(row).local_names \(from)
                WHERE \(Schema.hasNames("\(row).local_names"));
            """)
    }

    /// SQL that moves the listing version (`SQLiteStore.listingVersion`).
    private static let bumpListingVersion =
        "UPDATE sync_state SET value = CAST(value AS INTEGER) + 1 WHERE key = 'listing_version';"

    /// Drops the single-document indexes of v3 and v6 and their triggers, and builds the v8 ones.
    static func replaceSpeciesDocuments(_ db: Database) throws {
        try db.execute(sql: """
            DROP TRIGGER IF EXISTS oak_entries_indexed_insert;
            DROP TRIGGER IF EXISTS oak_entries_indexed_update;
            DROP TRIGGER IF EXISTS oak_entries_indexed_delete;
            DROP TRIGGER IF EXISTS species_sources_indexed_insert;
            DROP TRIGGER IF EXISTS species_sources_indexed_update;
            DROP TRIGGER IF EXISTS species_sources_indexed_delete;
            DROP TABLE IF EXISTS species_fts;
            DROP TABLE IF EXISTS species_trigram;
            INSERT OR IGNORE INTO species_search_keys(scientific_name) SELECT scientific_name FROM oak_entries;
            INSERT OR IGNORE INTO sync_state(key, value) VALUES ('listing_version', '0');
            """)
        for (table, options) in tables.sorted(by: { $0.key < $1.key }) {
            try db.execute(sql: "CREATE VIRTUAL TABLE \(table) USING fts5(scientific_name, synonyms, local_names, \(options))")
        }
        try db.execute(sql: insertSpecies("e", from: "oak_entries e,"))
        try db.execute(sql: insertSource("ss", from: "FROM species_sources ss"))
        let oldKey = "(SELECT id FROM species_search_keys WHERE scientific_name = OLD.scientific_name)"
        // Every document of the species: its own and its source rows' (a species' delete cascades to its rows).
        let deleteSpecies = eachTable("DELETE FROM %t WHERE rowid >= (\(oldKey) << 32) AND rowid < ((\(oldKey) + 1) << 32);")
        let deleteSpeciesOwn = eachTable("DELETE FROM %t WHERE rowid = (\(oldKey) << 32);")
        let deleteSource = eachTable("DELETE FROM %t WHERE rowid = \(rowid(species: "OLD.scientific_name", row: "OLD.id"));")
        try db.execute(sql: """
            CREATE TRIGGER oak_entries_searched_insert AFTER INSERT ON oak_entries BEGIN
                INSERT OR IGNORE INTO species_search_keys(scientific_name) VALUES (NEW.scientific_name);
                \(insertSpecies("NEW"))
            END;
            CREATE TRIGGER oak_entries_searched_update AFTER UPDATE OF scientific_name, synonyms ON oak_entries
            WHEN OLD.synonyms IS NOT NEW.synonyms OR OLD.scientific_name IS NOT NEW.scientific_name BEGIN
                \(deleteSpeciesOwn)
                INSERT OR IGNORE INTO species_search_keys(scientific_name) VALUES (NEW.scientific_name);
                \(insertSpecies("NEW"))
            END;
            CREATE TRIGGER oak_entries_searched_delete AFTER DELETE ON oak_entries BEGIN
                \(deleteSpecies)
                DELETE FROM species_search_keys WHERE scientific_name = OLD.scientific_name;
            END;
            CREATE TRIGGER species_sources_searched_insert AFTER INSERT ON species_sources WHEN \(Schema.hasNames("NEW.local_names")) BEGIN
                \(insertSource("NEW"))
            END;
            CREATE TRIGGER species_sources_searched_update AFTER UPDATE OF local_names, scientific_name ON species_sources
            WHEN OLD.local_names IS NOT NEW.local_names OR OLD.scientific_name IS NOT NEW.scientific_name BEGIN
                \(deleteSource)
                \(insertSource("NEW"))
                \(bumpListingVersion)
            END;
            CREATE TRIGGER species_sources_listed_insert AFTER INSERT ON species_sources BEGIN
                \(bumpListingVersion)
            END;
            CREATE TRIGGER species_sources_listed_delete AFTER DELETE ON species_sources BEGIN
                \(bumpListingVersion)
            END;
            CREATE TRIGGER species_sources_searched_delete AFTER DELETE ON species_sources WHEN \(Schema.hasNames("OLD.local_names")) BEGIN
                \(deleteSource)
            END;
            """)
    }
}
