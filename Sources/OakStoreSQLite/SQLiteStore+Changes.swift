import GRDB
import OakModels
import OakStore

extension SQLiteStore {
    /// The most changes read at once; past it, everything counts as changed.
    static let changeFeedLimit = 1000

    /// What changed after `position` (nil: nothing is known yet, so only the head and listing version).
    /// A short read, so it can run under the read cache's lock.
    public func changes(after position: Int64?) throws -> DataChanges {
        try read { db in
            var changes = DataChanges(head: try Self.changeLogVersion(db), listingVersion: try Self.listingVersion(db))
            guard let position, position < changes.head else { return changes }
            if position < (try Self.compactedThrough(db)) {
                changes.everything = true
                return changes
            }
            let rows = try Row.fetchAll(
                db,
                cachedSQL: """
                    SELECT c.entity, c.entity_key, ss.scientific_name AS row_species
                    FROM change_log c LEFT JOIN species_sources ss ON c.entity = 'notes' AND ss.uuid = c.entity_key
                    WHERE c.seq > ? ORDER BY c.seq LIMIT ?
                    """,
                arguments: [position, Self.changeFeedLimit + 1])
            if rows.count > Self.changeFeedLimit {
                changes.everything = true
                return changes
            }
            for row in rows {
                switch SyncEntity(rawValue: row["entity"]) {
                case .species: changes.species.insert(DataChanges.bareName(row["entity_key"]))
                case .notes:
                    if let name: String = row["row_species"] {
                        changes.speciesWithChangedRows.insert(DataChanges.bareName(name))
                    } else {
                        changes.unknownRows = true
                    }
                case .taxa: changes.taxa = true
                case .sources: changes.sources = true
                case nil: changes.everything = true
                }
            }
            return changes
        }
    }

    /// A number that moves whenever what lists and searches show beyond species rows changes: a source row
    /// is added or removed (which species have data from which source, and sources' species counts), or its
    /// local names change. Kept by triggers (migration v11).
    static func listingVersion(_ db: Database) throws -> Int64 {
        Int64(try String.fetchOne(db, cachedSQL: "SELECT value FROM sync_state WHERE key = 'listing_version'") ?? "0") ?? 0
    }
}
