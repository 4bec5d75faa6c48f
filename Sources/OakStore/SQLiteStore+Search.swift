import Foundation
import GRDB
import OakModels

extension SQLiteStore {
    public func searchSpecies(query: String, limit: Int) async throws -> [Species] {
        let search = try SearchText(query)
        return try read { db in try Self.matchingSpecies(db, search, limit: limit) }
    }

    public func search(query: String, limit: Int) async throws -> CatalogSearchResult {
        let search = try SearchText(query)
        return try read { db in
            let species = try Self.matchingSpecies(db, search, limit: limit)
            let taxa = try db.fetchAll(
                cachedSQL: """
                    SELECT \(Self.taxonColumns) FROM taxa t WHERE name LIKE ?1 ESCAPE '\\'
                    ORDER BY \(SearchText.rank("name")), name, level LIMIT ?4
                    """,
                arguments: search.arguments(limit: limit), Taxon.init(row:)
            ).compactMap { $0 }
            let sources = try db.fetchAll(
                cachedSQL: """
                    SELECT \(Self.sourceColumns) FROM sources s WHERE name LIKE ?1 ESCAPE '\\'
                    ORDER BY \(SearchText.rank("name")), name, id LIMIT ?4
                    """,
                arguments: search.arguments(limit: limit), Source.init(row:))
            return CatalogSearchResult(
                query: query, species: species, taxa: taxa, sources: sources)
        }
    }

    /// Species whose name, synonyms or local names contain the text (case-insensitively), or whose words
    /// start with its words ignoring diacritics; exact names first, then names starting with the text,
    /// then synonyms or local names starting with it, then the rest, each by name.
    static func matchingSpecies(_ db: Database, _ search: SearchText, limit: Int) throws -> [Species] {
        // Three characters or more go through the trigram index; shorter text is compared with every document.
        let substring =
            search.text.count >= 3
            ? "SELECT rowid >> 32 FROM search_trigrams WHERE search_trigrams MATCH ?2"
            : "SELECT rowid >> 32 FROM search_trigrams WHERE scientific_name LIKE ?1 ESCAPE '\\' OR synonyms LIKE ?1 ESCAPE '\\' OR local_names LIKE ?1 ESCAPE '\\'"
        // One list of species keys (a UNION, not an OR of two lists, which scanned every species).
        let words = search.wordQuery.map { _ in " UNION SELECT rowid >> 32 FROM search_words WHERE search_words MATCH ?6" } ?? ""
        var arguments = search.arguments(limit: limit)
        if let wordQuery = search.wordQuery { arguments += [wordQuery] }
        return try db.fetchAll(
            cachedSQL: """
                SELECT e.* FROM species_search_keys k JOIN oak_entries e ON e.scientific_name = k.scientific_name
                WHERE k.id IN (\(substring)\(words))
                ORDER BY CASE
                    WHEN e.scientific_name = ?5 COLLATE NOCASE OR e.scientific_name = ('× ' || ?5) COLLATE NOCASE THEN 0
                    WHEN e.scientific_name LIKE ?3 || '%' ESCAPE '\\' OR e.scientific_name LIKE '× ' || ?3 || '%' ESCAPE '\\' THEN 1
                    WHEN e.synonyms LIKE '%"' || ?3 || '%' ESCAPE '\\'
                        OR EXISTS (SELECT 1 FROM species_sources s WHERE s.scientific_name = e.scientific_name
                            AND s.local_names LIKE '%"' || ?3 || '%' ESCAPE '\\') THEN 2
                    ELSE 3 END, e.scientific_name
                LIMIT ?4
                """,
            arguments: arguments, Species.init(row:))
    }
}

/// What a search looks for: the query as a species name is normalized ("x bebbiana" is "× bebbiana",
/// "Quercus alba" is "alba"), and its forms for SQL.
struct SearchText {
    let text: String

    init(_ query: String) throws {
        if query.contains("\0") { throw OakError.invalid("q", "must not contain NUL characters") }
        text = Species.normalizedName(query)
        guard !text.isEmpty else { throw OakError.invalid("q", "is required") }
    }

    /// The text with LIKE's wildcards escaped (by `\`).
    var likeEscaped: String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }

    /// An FTS5 phrase matching the text literally.
    var phrase: String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// An FTS5 query for the word index: every word of the text as the start of a word, or nil when the
    /// text has no letters or digits.
    var wordQuery: String? {
        let words = text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
        return words.isEmpty ? nil : words.prefix(16).map { "\"\($0)\"*" }.joined(separator: " ")
    }

    /// The arguments of the search queries: ?1 the LIKE pattern for a substring, ?2 the FTS5 phrase,
    /// ?3 the escaped text (patterns for ranking), ?4 the limit, ?5 the text itself.
    func arguments(limit: Int) -> StatementArguments {
        ["%" + likeEscaped + "%", phrase, likeEscaped, limit, text]
    }

    /// An SQL ranking of a name column: 0 exact, 1 starts with the text, 2 contains it.
    static func rank(_ column: String) -> String {
        "CASE WHEN \(column) = ?5 COLLATE NOCASE THEN 0 WHEN \(column) LIKE ?3 || '%' ESCAPE '\\' THEN 1 ELSE 2 END"
    }
}
