import GRDB

/// The full-text indexes searches read (v8 layout). `search_words` matches words and their starts ignoring
/// diacritics ("chene" finds "chêne"); `search_trigrams` matches any substring ("lba" finds "alba"). Both
/// hold one document per species (its name and synonyms, rowid = its `species_search_keys` id) and one per
/// row of source data that has local names (rowid = minus the row's id), each naming its species in the
/// unindexed `species_key` column.
///
/// Before v8 a species had a single document with every source's local names in it, so adding one note
/// re-tokenized all of that species' names in both indexes: 90% of the time of a pushed note. Now a note
/// writes only its own names.
enum SearchDocuments {
    static let tables = ["search_words": "tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'", "search_trigrams": "tokenize = 'trigram'"]

    /// SQL: the search key of a species named by an SQL expression.
    static func key(_ name: String) -> String { "(SELECT id FROM species_search_keys WHERE scientific_name = \(name))" }

    /// SQL run for each index: `statement` with `%t` standing for the table's name.
    private static func eachTable(_ statement: String) -> String {
        tables.keys.sorted().map { statement.replacingOccurrences(of: "%t", with: $0) }.joined(separator: "\n")
    }

    /// SQL that writes species' own documents (name and synonyms): of `NEW` in a trigger, or of every row of
    /// `oak_entries e` (`from`).
    private static func insertSpecies(_ row: String, from: String = "") -> String {
        eachTable("""
            INSERT INTO %t(rowid, scientific_name, synonyms, local_names, species_key)
                SELECT k.id, k.scientific_name, COALESCE(\(row).synonyms, ''), '', k.id FROM \(from) species_search_keys k
                WHERE k.scientific_name = \(row).scientific_name;
            """)
    }

    /// SQL that writes the documents of rows of source data: of `NEW` in a trigger, or of every row of
    /// `species_sources ss` (`from`).
    private static func insertSource(_ row: String, from: String = "") -> String {
        eachTable("""
            INSERT INTO %t(rowid, scientific_name, synonyms, local_names, species_key)
                SELECT -\(row).id, '', '', \(row).local_names, \(key("\(row).scientific_name")) \(from)
                WHERE \(Schema.hasNames("\(row).local_names"));
            """)
    }

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
            """)
        for (table, options) in tables.sorted(by: { $0.key < $1.key }) {
            try db.execute(sql: "CREATE VIRTUAL TABLE \(table) USING fts5(scientific_name, synonyms, local_names, species_key UNINDEXED, \(options))")
        }
        try db.execute(sql: insertSpecies("e", from: "oak_entries e,"))
        try db.execute(sql: insertSource("ss", from: "FROM species_sources ss"))
        let deleteSpecies = eachTable("DELETE FROM %t WHERE rowid = \(key("OLD.scientific_name"));")
        let deleteSource = eachTable("DELETE FROM %t WHERE rowid = -OLD.id;")
        try db.execute(sql: """
            CREATE TRIGGER oak_entries_searched_insert AFTER INSERT ON oak_entries BEGIN
                INSERT OR IGNORE INTO species_search_keys(scientific_name) VALUES (NEW.scientific_name);
                \(insertSpecies("NEW"))
            END;
            CREATE TRIGGER oak_entries_searched_update AFTER UPDATE OF scientific_name, synonyms ON oak_entries
            WHEN OLD.synonyms IS NOT NEW.synonyms OR OLD.scientific_name IS NOT NEW.scientific_name BEGIN
                \(deleteSpecies)
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
            END;
            CREATE TRIGGER species_sources_searched_delete AFTER DELETE ON species_sources WHEN \(Schema.hasNames("OLD.local_names")) BEGIN
                \(deleteSource)
            END;
            """)
    }
}
