import Foundation
import GRDB
import OakModels
import OakSQLite
import OakStore
import OakStoreKit

extension StarterDataset {
    /// Inserts whichever of the three standard sources is missing (by id), leaving existing ones alone.
    static func insertStandardSources(_ db: Database) throws {
        for source in standardSources {
            if try !SQLiteStore.sourceExists(db, source.id) {
                var values = source.columnValues
                values["id"] = StoredValue(source.id)
                try db.insert(into: "sources", values)
            }
        }
    }

    /// Seeds taxa and species into a database that has no species yet, once.
    static func seedIfEmpty(_ db: Database) throws {
        let seeded = try String.fetchOne(db, cachedSQL: "SELECT value FROM import_metadata WHERE key = 'starter_dataset'")
        let speciesCount = try Int.fetchOne(db, cachedSQL: "SELECT COUNT(*) FROM oak_entries") ?? 0
        guard seeded == nil, speciesCount == 0 else { return }
        let document = try load()
        for taxon in document.taxa {
            try db.insert(into: "taxa", taxon.columnValues)
        }
        for species in document.species {
            try db.insert(into: "oak_entries", species.columnValues)
        }
        try db.execute(
            sql: "INSERT INTO import_metadata(key, value) VALUES ('starter_dataset', ?)",
            arguments: [WireTime.format(Date())])
    }
}
