import Foundation
import OakModels
import OakStore
import OakStoreSQLite

/// What a command reads and writes the compendium through, whether it is a local database file (`SQLiteStore`)
/// or a server (`RemoteCatalog`): the store's repository protocols, plus search, counts and the export.
public protocol CatalogAccess: SpeciesRepository, TaxonRepository, SourceRepository, SpeciesSourceRepository, NoteRepository {
    /// What the commands work on, for messages: "database ./oak_compendium.db" or "server https://…".
    var location: String { get }
    func search(query: String, limit: Int) async throws -> CatalogSearchResult
    func stats() async throws -> CatalogStats
    /// The export document (`ExportFile`), encoded.
    func exportDocument() async throws -> Data
}

extension SQLiteStore: CatalogAccess {
    public var location: String { "database \(path)" }
}
