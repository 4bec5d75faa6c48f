import GRDB
import OakModels
import OakSQLite
import OakStore
import OakStoreKit

extension SQLiteStore {
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
                cachedSQL: DataChanges.feedQuery(position: "?", limit: "?"), arguments: [position, DataChanges.feedLimit + 1])
            if rows.count > DataChanges.feedLimit {
                changes.everything = true
                return changes
            }
            for row in rows {
                changes.add(entity: row["entity"], key: row["entity_key"], rowSpecies: row["row_species"])
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
