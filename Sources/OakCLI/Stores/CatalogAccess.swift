import Foundation
import OakModels
import OakStore
import OakStoreSQLite

/// Everything a command reads and writes, whether the compendium is a local database file or a server:
/// the store's repository protocols, plus the views across the whole compendium.
public protocol Catalog: SpeciesRepository, TaxonRepository, SourceRepository, SpeciesSourceRepository, NoteRepository {
    /// What the commands work on, for messages: "database ./oak_compendium.db" or "server https://…".
    var location: String { get }
    func search(query: String, limit: Int) async throws -> CatalogSearchResult
    func stats() async throws -> CatalogStats
    /// The export document (`ExportFile`), encoded.
    func exportDocument() async throws -> Data
}

extension SQLiteStore: Catalog {
    public var location: String { "database \(path)" }

    public func exportDocument() async throws -> Data {
        Data(try await export().body.readableBytesView)
    }
}
