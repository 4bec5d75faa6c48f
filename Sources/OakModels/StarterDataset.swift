import Foundation

/// The standard sources and the bundled starter dataset (taxa and species): what a new database is seeded with
/// (`SQLiteStore`, `PostgresStore`) and what the app shows offline before its first sync (`StarterCatalog`).
package enum StarterDataset {
    package static let standardSources = [
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

    package struct Document: Decodable {
        package var taxa: [Taxon]
        package var species: [Species]
    }

    /// Loads the bundled dataset.
    package static func load() throws -> Document {
        guard let url = Bundle.module.url(forResource: "starter-dataset", withExtension: "json") else {
            throw OakError(.internalError, "The starter dataset is missing from the bundle")
        }
        return try JSONDecoder().decode(Document.self, from: Data(contentsOf: url))
    }
}
