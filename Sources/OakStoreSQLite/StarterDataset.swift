import Foundation
import GRDB
import OakModels
import OakStore

/// The standard sources and the bundled starter dataset a new database gets.
enum StarterDataset {
    static let standardSources = [
        Source(
            id: Source.iNaturalistID, sourceType: "Website", name: "iNaturalist",
            description: "Community science platform for recording and sharing observations",
            url: "https://www.inaturalist.org", license: "CC BY-NC 4.0",
            licenseURL: "https://creativecommons.org/licenses/by-nc/4.0/"),
        Source(
            id: Source.oaksOfTheWorldID, sourceType: "Website", name: "Oaks of the World",
            description: "Reference website on the genus Quercus", url: "https://oaksoftheworld.fr"),
        Source(
            id: Source.personalObservationID, sourceType: "Personal Observation", name: "Oak Compendium",
            description: "Personal field observations", url: "https://oakcompendium.org"),
    ]

    /// Inserts whichever of the three standard sources is missing (by id), leaving existing ones alone.
    static func insertStandardSources(_ db: Database) throws {
        for source in standardSources {
            if try !SQLiteStore.sourceExists(db, source.id) {
                var values = source.columnValues
                values["id"] = source.id
                try db.insert(into: "sources", values)
            }
        }
    }

    struct Document: Decodable {
        var taxa: [Taxon]
        var species: [Species]
    }

    /// Loads the bundled dataset.
    static func load() throws -> Document {
        guard let url = Bundle.module.url(forResource: "starter-dataset", withExtension: "json") else {
            throw OakError(.internalError, "The starter dataset is missing from the bundle")
        }
        return try JSONDecoder().decode(Document.self, from: Data(contentsOf: url))
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
