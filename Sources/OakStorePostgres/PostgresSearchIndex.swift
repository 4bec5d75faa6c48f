import Foundation
import OakModels
import OakStore
import OakStoreKit

/// The store's in-memory search index (`SpeciesSearchIndex`), brought up to the change log's head before
/// each search: what changed since its position is read in one snapshot and applied here, so a write
/// through any instance is found by the next search on every instance once its notification has arrived
/// (`ChangeNotifications`).
actor PostgresSearchIndex {
    private var index = SpeciesSearchIndex()

    /// The species names matching a search, in the rule's order.
    func search(_ search: SpeciesSearch, limit: Int, in store: PostgresStore) async throws -> [String] {
        try await catchUp(in: store)
        return index.search(search, limit: limit)
    }

    /// Brings the index up to the head of the change log as the store knows it (`dataVersion()`: without a round trip
    /// while change notifications arrive, so as current as the answers the response cache holds).
    func catchUp(in store: PostgresStore) async throws {
        let head = try await store.dataVersion().changeLogHead
        while (index.head ?? -1) < head {
            let from = index.head
            let update = try await store.snapshot { session in try await Update.read(session, after: from) }
            // Another search may have brought the index further meanwhile.
            guard index.head == from else { continue }
            switch update {
            case .reload(let species, let speciesOfRow, let head):
                index.load(species: species, speciesOfRow: speciesOfRow, head: head)
            case .changes(let rows, var names, let head):
                var missing = Set<String>()
                for (id, species) in rows {
                    if let previous = index.setRow(id, species: species), names.index(forKey: previous) == nil { missing.insert(previous) }
                }
                if !missing.isEmpty {
                    let due = missing
                    let read = try await store.snapshot { session in try await Update.names(session, of: due) }
                    names.merge(read) { current, _ in current }
                }
                for (name, entry) in names { index.setSpecies(name, entry) }
                index.finish(at: head)
            }
        }
    }

    /// What the index must take in to reach the log's head, read in one snapshot.
    private enum Update: Sendable {
        /// Everything, read again: the first fill, after compaction past the index, or after many changes.
        case reload(species: [String: SpeciesSearchIndex.Names], speciesOfRow: [UUID: String], head: Int64)
        /// The source rows named by the log (with the species each belongs to now, when it has local names),
        /// and the names of every species named or holding one of those rows (nil: the species is gone).
        case changes(rows: [(UUID, String?)], names: [String: SpeciesSearchIndex.Names?], head: Int64)

        static func read(_ session: PostgresSession, after from: Int64?) async throws -> Update {
            let head = try await PostgresStore.changeLogHead(session)
            guard let from, from >= (try await PostgresStore.compactedThrough(session)) else { return try await reload(session, head: head) }
            let changed = try await session.rows(
                """
                SELECT c.entity, c.entity_key, ss.scientific_name AS row_species
                FROM change_log c LEFT JOIN species_sources ss ON c.entity = 'notes' AND ss.uuid = c.entity_key
                    AND \(StoreSQL.hasNames("ss.local_names"))
                WHERE c.seq > $1 AND c.seq <= $2 AND c.entity IN ('species', 'notes') ORDER BY c.seq LIMIT $3
                """,
                [.integer(from), .integer(head), StoredValue(DataChanges.feedLimit + 1)])
            guard changed.count <= DataChanges.feedLimit else { return try await reload(session, head: head) }
            var due = Set<String>()
            var rows: [(UUID, String?)] = []
            for row in changed {
                let key = row.text("entity_key") ?? ""
                if row.text("entity") == SyncEntity.species.rawValue {
                    due.insert(key)
                } else if let id = UUID(wireString: key) {
                    let species = row.text("row_species")
                    rows.append((id, species))
                    if let species { due.insert(species) }
                }
            }
            return .changes(rows: rows, names: due.isEmpty ? [:] : try await names(session, of: due), head: head)
        }

        /// The names in the JSON array `$1`, as an array for `= ANY`: looked up by index. PostgreSQL has no
        /// statistics for a JSON array's elements, and plans `IN (SELECT jsonb_array_elements_text($1))` over
        /// a table of notes as a scan of the whole table (25–35 ms each time the index catches up, on the
        /// bench's 10,600 notes).
        static let listedNames = "ARRAY(SELECT jsonb_array_elements_text($1::jsonb))"

        /// The names of the species named (nil for a species that is gone).
        static func names(_ session: PostgresSession, of species: Set<String>) async throws -> [String: SpeciesSearchIndex.Names?] {
            var names = [String: SpeciesSearchIndex.Names?]()
            for name in species { names[name] = .some(nil) }
            let list = StoredValue.text(ColumnCoding.json(Array(species)))
            for row in try await session.rows(
                "SELECT scientific_name, synonyms FROM oak_entries WHERE scientific_name = ANY (\(Self.listedNames))", [list])
            {
                names[row.text("scientific_name") ?? ""] = SpeciesSearchIndex.Names(synonyms: ColumnCoding.strings(row.text("synonyms")), localNames: [])
            }
            for row in try await session.rows(
                """
                SELECT scientific_name, local_names FROM species_sources
                WHERE scientific_name = ANY (\(Self.listedNames)) AND \(StoreSQL.hasNames("local_names")) ORDER BY id
                """, [list])
            {
                let name = row.text("scientific_name") ?? ""
                if case .some(.some(var entry)) = names[name] {
                    entry.localNames += ColumnCoding.strings(row.text("local_names"))
                    names[name] = entry
                }
            }
            return names
        }

        static func reload(_ session: PostgresSession, head: Int64) async throws -> Update {
            var species = [String: SpeciesSearchIndex.Names]()
            for row in try await session.rows("SELECT scientific_name, synonyms FROM oak_entries") {
                species[row.text("scientific_name") ?? ""] = SpeciesSearchIndex.Names(synonyms: ColumnCoding.strings(row.text("synonyms")), localNames: [])
            }
            var speciesOfRow = [UUID: String]()
            for row in try await session.rows(
                "SELECT uuid, scientific_name, local_names FROM species_sources WHERE \(StoreSQL.hasNames("local_names")) ORDER BY id")
            {
                let name = row.text("scientific_name") ?? ""
                if let id = row.text("uuid").flatMap(UUID.init(uuidString:)) { speciesOfRow[id] = name }
                species[name]?.localNames += ColumnCoding.strings(row.text("local_names"))
            }
            return .reload(species: species, speciesOfRow: speciesOfRow, head: head)
        }
    }
}
