import Foundation
import GRDB
import OakModels
import OakStore

extension SQLiteStore {
    public func searchSpecies(query: String, limit: Int) async throws -> [Species] {
        let search = try SearchText(query)
        return try read { db in try matchingSpecies(db, search, limit: limit) }
    }

    /// Fills the index from a read on a thread of its own: neither a cooperative thread is held while it
    /// loads, nor is a reader held until a cooperative thread is free to release it (which a caller closing
    /// the store at the same time would wait for).
    public func prepareSearch() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result { try self.read { db in try self.searchIndex.withCurrent(db) { _ in } } })
            }
        }
    }

    public func search(query: String, limit: Int) async throws -> CatalogSearchResult {
        let search = try SearchText(query)
        return try read { db in
            let species = try matchingSpecies(db, search, limit: limit)
            let taxa = try db.fetchAll(
                cachedSQL: """
                    SELECT \(StoreSQL.taxonColumns) FROM taxa t WHERE \(SearchText.contains("name"))
                    ORDER BY \(SearchText.rank("name")), name, level LIMIT ?2
                    """,
                arguments: search.arguments(limit: limit), Taxon.init(row:)
            ).compactMap { $0 }
            let sources = try db.fetchAll(
                cachedSQL: """
                    SELECT \(StoreSQL.sourceColumns) FROM sources s WHERE \(SearchText.contains("name"))
                    ORDER BY \(SearchText.rank("name")), name, id LIMIT ?2
                    """,
                arguments: search.arguments(limit: limit), Source.init(row:))
            return CatalogSearchResult(
                query: query, species: species, taxa: taxa, sources: sources)
        }
    }

    /// Species whose name, synonyms or local names contain the text, or whose words start with its words,
    /// ranked by the shared rule (`SpeciesSearch`) over the in-memory index, which first catches up with the
    /// change log in this read's snapshot.
    func matchingSpecies(_ db: Database, _ search: SearchText, limit: Int) throws -> [Species] {
        let names = try searchIndex.withCurrent(db) { $0.search(search.rule, limit: limit) }
        guard !names.isEmpty else { return [] }
        let species = try db.fetchAll(
            cachedSQL: "SELECT * FROM oak_entries WHERE scientific_name IN (SELECT value FROM json_each(?))",
            arguments: [ColumnCoding.json(names)], Species.init(row:))
        let order = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        return species.sorted { order[$0.scientificName, default: .max] < order[$1.scientificName, default: .max] }
    }
}

/// The store's search index and the lock around it.
final class SearchIndexBox: @unchecked Sendable {
    private let lock = NSLock()
    private var index = SpeciesSearchIndex()

    /// Runs `body` on the index once it reflects the database as `db` sees it: filled on first use, then
    /// brought forward by the species and source rows the change log names since. Everything is read again
    /// when the log was compacted past the index, names more than `DataChanges.feedLimit` changes, or
    /// went backwards (another file put in place).
    func withCurrent<T>(_ db: Database, _ body: (SpeciesSearchIndex) throws -> T) throws -> T {
        try lock.withLock {
            let head = try SQLiteStore.changeLogVersion(db)
            if index.head != head { try catchUp(db, to: head) }
            return try body(index)
        }
    }

    /// Applies the changes after the index's position: the species named, and the species that rows named
    /// belong to now or belonged to before, get their documents set again from the database.
    private func catchUp(_ db: Database, to head: Int64) throws {
        guard let from = index.head, from < head, from >= (try SQLiteStore.compactedThrough(db)) else { return try reload(db, head: head) }
        let changed = try Row.fetchAll(
            db,
            cachedSQL: "SELECT entity, entity_key FROM change_log WHERE seq > ? AND entity IN ('species', 'notes') ORDER BY seq LIMIT ?",
            arguments: [from, DataChanges.feedLimit + 1])
        guard changed.count <= DataChanges.feedLimit else { return try reload(db, head: head) }
        var due = Set<String>()
        for row in changed {
            let key: String = row["entity_key"]
            if row["entity"] == "species" {
                due.insert(key)
            } else if let id = UUID(uuidString: key) {
                let species = try String.fetchOne(
                    db, cachedSQL: "SELECT scientific_name FROM species_sources WHERE uuid = ? AND \(StoreSQL.hasNames("local_names"))",
                    arguments: [key])
                if let previous = index.setRow(id, species: species) { due.insert(previous) }
                if let species { due.insert(species) }
            }
        }
        for name in due { index.setSpecies(name, try Self.names(db, of: name)) }
        index.finish(at: head)
    }

    /// A species' synonyms and the local names of its source rows, or nil when there is no such species.
    private static func names(_ db: Database, of name: String) throws -> SpeciesSearchIndex.Names? {
        guard let synonyms = try String?.fetchOne(db, cachedSQL: "SELECT synonyms FROM oak_entries WHERE scientific_name = ?", arguments: [name])
        else { return nil }
        let localNames = try db.fetchAll(
            cachedSQL: "SELECT local_names FROM species_sources WHERE scientific_name = ? AND \(StoreSQL.hasNames("local_names")) ORDER BY id",
            arguments: [name]
        ) { ColumnCoding.strings($0[0]) }
        return SpeciesSearchIndex.Names(synonyms: ColumnCoding.strings(synonyms), localNames: localNames.flatMap { $0 })
    }

    private func reload(_ db: Database, head: Int64) throws {
        var species = [String: SpeciesSearchIndex.Names]()
        let synonyms = try db.fetchAll(cachedSQL: "SELECT scientific_name, synonyms FROM oak_entries") {
            (name: $0[0] as String, synonyms: ColumnCoding.strings($0[1]))
        }
        for entry in synonyms { species[entry.name] = SpeciesSearchIndex.Names(synonyms: entry.synonyms, localNames: []) }
        var speciesOfRow = [UUID: String]()
        let rows = try db.fetchAll(
            cachedSQL: "SELECT uuid, scientific_name, local_names FROM species_sources WHERE \(StoreSQL.hasNames("local_names")) ORDER BY id"
        ) { (id: ($0[0] as String?).flatMap(UUID.init(uuidString:)), species: $0[1] as String, localNames: ColumnCoding.strings($0[2])) }
        for row in rows {
            // Rows older tools wrote without a note id are never in the change log; their names count all the same.
            if let id = row.id { speciesOfRow[id] = row.species }
            species[row.species]?.localNames += row.localNames
        }
        index.load(species: species, speciesOfRow: speciesOfRow, head: head)
    }
}

extension SearchText {
    /// The arguments of the taxon and source queries: ?1 the text, ?2 the limit.
    func arguments(limit: Int) -> StatementArguments {
        [text, limit]
    }

    /// SQL: whether a name column contains the text, ignoring ASCII case (as SQLite's `LIKE` does). Not
    /// `LIKE` with a bound pattern: SQLite prepares such a statement again for every new pattern.
    static func contains(_ column: String) -> String { "instr(lower(\(column)), lower(?1)) > 0" }

    /// An SQL ranking of a name column: 0 exact, 1 starts with the text, 2 contains it (ignoring ASCII case).
    static func rank(_ column: String) -> String {
        "CASE WHEN \(column) = ?1 COLLATE NOCASE THEN 0 WHEN instr(lower(\(column)), lower(?1)) = 1 THEN 1 ELSE 2 END"
    }
}
