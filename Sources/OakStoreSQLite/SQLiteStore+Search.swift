import Foundation
import GRDB
import NIOCore
import OakModels
import OakSQLite
import OakStore
import OakStoreKit

extension SQLiteStore {
    public func searchSpecies(query: String, limit: Int) async throws -> [Species] {
        let search = try SearchText(query)
        let names = try await withSearchIndex { $0.species.search(search.rule, limit: limit) }
        guard !names.isEmpty else { return [] }
        return try read { db in try Self.species(db, named: names) }
    }

    /// Fills the index from a read on a thread of its own: neither a cooperative thread is held while it
    /// loads, nor is a reader held until a cooperative thread is free to release it (which a caller closing
    /// the store at the same time would wait for).
    public func prepareSearch() async throws {
        let version = try await dataVersion()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result { try self.read { db in try self.searchIndex.withCurrent(db, at: version) { _ in } } })
            }
        }
    }

    /// Species by the species rule, taxa and sources whose names contain the text. The matching runs in
    /// memory, and the species' records are held there too: the database is read only for the taxa and
    /// sources found, so most searches read nothing.
    public func searchDocument(query: String, limit: Int) async throws -> ByteBuffer {
        let search = try SearchText(query)
        let found = try await withSearchIndex { SearchMatches(search, in: $0, limit: limit) }
        guard found.needsRead else { return try found.document(query: query, taxa: [], sources: []) }
        return try read { db in
            try found.document(query: query, taxa: try Self.taxa(db, keyed: found.taxa), sources: try Self.sources(db, ids: found.sources))
        }
    }

    /// The search's document when the index is current at `version` and no taxon or source matches (their rows
    /// would be read). It never waits for the index's lock.
    public func searchDocumentInMemory(query: String, limit: Int, at version: DataVersion) -> ByteBuffer? {
        guard let search = try? SearchText(query),
            let found = searchIndex.ifCurrent(at: version, waits: false, { SearchMatches(search, in: $0, limit: limit) }), !found.needsRead
        else { return nil }
        return try? found.document(query: query, taxa: [], sources: [])
    }

    /// The taxa with the given change-log keys, in that order (none read for none).
    private static func taxa(_ db: Database, keyed keys: [String]) throws -> [Taxon] {
        guard !keys.isEmpty else { return [] }
        let taxa = try db.fetchAll(
            cachedSQL: "SELECT \(StoreSQL.taxonColumns) FROM taxa t WHERE t.level || '/' || t.name IN (SELECT value FROM json_each(?))",
            arguments: [ColumnCoding.json(keys)], Taxon.init(row:))
        return inOrder(taxa.compactMap { $0 }, of: keys, \.changeLogKey)
    }

    /// The sources with the given ids, in that order (none read for none).
    private static func sources(_ db: Database, ids: [Int]) throws -> [Source] {
        guard !ids.isEmpty else { return [] }
        let sources = try db.fetchAll(
            cachedSQL: "SELECT \(StoreSQL.sourceColumns) FROM sources s WHERE s.id IN (SELECT value FROM json_each(?))",
            arguments: [ColumnCoding.json(ids)], Source.init(row:))
        return inOrder(sources, of: ids, \.id)
    }

    /// Runs `body` on the search index as the data is now: without a database read when nothing was written
    /// since the index was last brought forward (`dataVersion`, which the response cache follows too),
    /// else after a read that brings it forward.
    func withSearchIndex<T>(_ body: (SearchIndexBox.Contents) throws -> T) async throws -> T {
        let version = try await dataVersion()
        if let value = try searchIndex.ifCurrent(at: version, body) { return value }
        return try read { db in try searchIndex.withCurrent(db, at: version, body) }
    }

    /// The species with the given names, in that order (names of species gone meanwhile are left out).
    static func species(_ db: Database, named names: [String]) throws -> [Species] {
        guard !names.isEmpty else { return [] }
        let species = try db.fetchAll(
            cachedSQL: "SELECT * FROM oak_entries WHERE scientific_name IN (SELECT value FROM json_each(?))",
            arguments: [ColumnCoding.json(names)], Species.init(row:))
        return inOrder(species, of: names, \.scientificName)
    }

    /// Rows read by key, put in the order of `keys`.
    private static func inOrder<Row, Key: Hashable>(_ rows: [Row], of keys: [Key], _ key: (Row) -> Key) -> [Row] {
        let order = Dictionary(keys.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        return rows.sorted { order[key($0), default: .max] < order[key($1), default: .max] }
    }
}

/// What a catalog search found in the index: the species' records, and the keys of the taxa and sources whose
/// rows are still to be read.
struct SearchMatches {
    let species: [[UInt8]]
    let taxa: [String]
    let sources: [Int]

    init(_ search: SearchText, in contents: SearchIndexBox.Contents, limit: Int) {
        species = contents.species.search(search.rule, limit: limit).compactMap { contents.speciesRecords[$0] }
        taxa = search.ranked(contents.taxa, limit: limit) { $0.level.utf8.lexicographicallyPrecedes($1.level.utf8) }.map(\.key)
        sources = search.ranked(contents.sources, limit: limit) { $0.id < $1.id }.map(\.id)
    }

    /// Whether taxa or sources matched, whose rows the document needs.
    var needsRead: Bool { !taxa.isEmpty || !sources.isEmpty }

    /// The search's document with the species found and the rows of the taxa and sources.
    func document(query: String, taxa: [Taxon], sources: [Source]) throws -> ByteBuffer {
        var document = CatalogSearchDocument()
        for record in species { document.addSpecies(record: record) }
        return try document.finish(query: query, taxa: taxa, sources: sources)
    }
}

/// The store's search index and the lock around it.
final class SearchIndexBox: @unchecked Sendable {
    /// What a search looks through.
    struct Contents {
        var species = SpeciesSearchIndex()
        /// Every taxon's and source's name with its key: what their search matches, in no order.
        var taxa: [TaxonName] = []
        var sources: [SourceName] = []
        /// Every species' record as sync pages and searches send it (`JSONOutput.speciesRecord`), by name.
        var speciesRecords: [String: [UInt8]] = [:]
    }

    struct TaxonName: SearchableName {
        let name: String
        let level: String
        let foldedName: [UInt8]
        /// The taxon's change-log key, `level/name`.
        var key: String { Taxon.changeLogKey(level: level, name: name) }
    }

    struct SourceName: SearchableName {
        let name: String
        let id: Int
        let foldedName: [UInt8]
    }

    private let lock = NSLock()
    private var contents = Contents()
    /// The store's data version when the contents were last brought forward; they hold every write it counts.
    private var version: DataVersion?

    /// `body` over the contents when they were brought forward at `version` already (no write since), else nil.
    /// The lock is held only to take the contents (a copy that shares their storage), not while `body` runs:
    /// held for a whole search, it made concurrent searches wait on one another. A caller on an event loop
    /// (`searchDocumentInMemory`) passes `waits: false`: while a read brings the contents forward (which holds
    /// the lock), the answer is then nil, and the loop's other connections are not stalled behind that read.
    func ifCurrent<T>(at version: DataVersion, waits: Bool = true, _ body: (Contents) throws -> T) rethrows -> T? {
        if waits {
            lock.lock()
        } else if !lock.try() {
            return nil
        }
        let current = self.version == version ? contents : nil
        lock.unlock()
        return try current.map(body)
    }

    /// Runs `body` on the contents once they reflect the database as `db` sees it: filled on first use, then
    /// brought forward by the rows the change log names since. Everything is read again when the log was
    /// compacted past the index, names more than `DataChanges.feedLimit` changes, or went backwards (another
    /// file put in place). `version` is the store's data version read before `db`'s read began.
    func withCurrent<T>(_ db: Database, at version: DataVersion, _ body: (Contents) throws -> T) throws -> T {
        let current = try lock.withLock {
            let head = try SQLiteStore.changeLogVersion(db)
            if contents.species.head != head { try catchUp(db, to: head) }
            self.version = version
            return contents
        }
        return try body(current)
    }

    /// Applies the changes after the index's position: the species named, and the species that rows named
    /// belong to now or belonged to before, get their documents set again from the database; taxa and
    /// sources, small tables, are read again whole when any of them changed.
    private func catchUp(_ db: Database, to head: Int64) throws {
        guard let from = contents.species.head, from < head, from >= (try SQLiteStore.compactedThrough(db)) else {
            return try reload(db, head: head)
        }
        let changed = try Row.fetchAll(
            db,
            cachedSQL: "SELECT entity, entity_key FROM change_log WHERE seq > ? AND entity IN ('species', 'notes', 'taxa', 'sources') ORDER BY seq LIMIT ?",
            arguments: [from, DataChanges.feedLimit + 1])
        guard changed.count <= DataChanges.feedLimit else { return try reload(db, head: head) }
        var due = Set<String>()
        var recordsDue = Set<String>()
        var (taxaChanged, sourcesChanged) = (false, false)
        for row in changed {
            let key: String = row["entity_key"]
            switch row["entity"] as String {
            case "species":
                due.insert(key)
                recordsDue.insert(key)
            case "notes":
                guard let id = UUID(wireString: key) else { continue }
                let species = try String.fetchOne(
                    db, cachedSQL: "SELECT scientific_name FROM species_sources WHERE uuid = ? AND \(StoreSQL.hasNames("local_names"))",
                    arguments: [key])
                if let previous = contents.species.setRow(id, species: species) { due.insert(previous) }
                if let species { due.insert(species) }
            case "taxa":
                taxaChanged = true
            default:
                sourcesChanged = true
            }
        }
        if taxaChanged { contents.taxa = try Self.taxonNames(db) }
        if sourcesChanged { contents.sources = try Self.sourceNames(db) }
        for name in due { contents.species.setSpecies(name, try Self.names(db, of: name)) }
        for name in recordsDue {
            contents.speciesRecords[name] = nil
            contents.speciesRecords.merge(try Self.speciesRecords(db, named: name)) { $1 }
        }
        contents.species.finish(at: head)
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
        contents.species.load(species: species, speciesOfRow: speciesOfRow, head: head)
        contents.speciesRecords = try Self.speciesRecords(db, named: nil)
        contents.taxa = try Self.taxonNames(db)
        contents.sources = try Self.sourceNames(db)
    }

    /// The records of the species named (all when nil), by name.
    private static func speciesRecords(_ db: Database, named name: String?) throws -> [String: [UInt8]] {
        let statement = try db.cachedStatement(sql: SpeciesRecordColumn.selection + (name == nil ? "" : " WHERE scientific_name = ?"))
        let rows = try Row.fetchCursor(statement, arguments: name.map { [$0] } ?? [])
        let columns = StatementColumns(statement)
        var records: [String: [UInt8]] = [:]
        var json = JSONOutput(capacity: 1024)
        while try rows.next() != nil {
            json.clear()
            try json.speciesRecord(columns)
            records[columns.string(SpeciesRecordColumn.scientificName.rawValue) ?? ""] = json.bytes
        }
        return records
    }

    private static func taxonNames(_ db: Database) throws -> [TaxonName] {
        try db.fetchAll(cachedSQL: "SELECT name, level FROM taxa") { TaxonName(name: $0[0], level: $0[1], foldedName: SearchText.folded($0[0])) }
    }

    private static func sourceNames(_ db: Database) throws -> [SourceName] {
        try db.fetchAll(cachedSQL: "SELECT name, id FROM sources") { SourceName(name: $0[0], id: $0[1], foldedName: SearchText.folded($0[0])) }
    }
}

/// A name a catalog search matches (a taxon's, a source's), kept with its folded form (`SearchText.folded`).
protocol SearchableName {
    var name: String { get }
    var foldedName: [UInt8] { get }
}

extension SearchText {
    /// The names that match (`nameRank`), best first: by rank, then by name (byte order, as SQLite compares
    /// text), then by `tieBreak`; at most `limit`. It lives beside its callers so that it is specialized for
    /// their item types (across modules it ran generic, with metadata look-ups on every search).
    func ranked<Item: SearchableName>(_ items: [Item], limit: Int, tieBreak: (Item, Item) -> Bool) -> [Item] {
        var matches: [(rank: Int, item: Item)] = []
        for item in items {
            if let rank = nameRank(folded: item.foldedName) { matches.append((rank, item)) }
        }
        return matches.sorted { first, second in
            if first.rank != second.rank { return first.rank < second.rank }
            let (firstName, secondName) = (first.item.name.utf8, second.item.name.utf8)
            if !firstName.elementsEqual(secondName) { return firstName.lexicographicallyPrecedes(secondName) }
            return tieBreak(first.item, second.item)
        }.prefix(limit).map { $0.item }
    }
}
