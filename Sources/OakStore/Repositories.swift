import Foundation
import OakModels

/// Species: the compendium's main records, keyed by scientific name.
public protocol SpeciesRepository: Sendable {
    func listSpecies(filter: SpeciesFilter, limit: Int, offset: Int) async throws -> Page<Species>
    func species(named name: String) async throws -> Species
    func speciesFull(named name: String) async throws -> SpeciesFull
    func searchSpecies(query: String, limit: Int) async throws -> [Species]
    func createSpecies(_ patch: SpeciesPatch) async throws -> Species
    func updateSpecies(named name: String, with patch: SpeciesPatch) async throws -> Species
    func deleteSpecies(named name: String) async throws
}

/// Taxa: subgenera, sections, subsections and complexes, keyed by (level, name).
public protocol TaxonRepository: Sendable {
    /// Taxa in rank order, then by name; with no limit, all of them.
    func listTaxa(level: TaxonLevel?, parent: String?, limit: Int?, offset: Int) async throws -> Page<Taxon>
    func taxon(level: TaxonLevel, name: String) async throws -> Taxon
    func createTaxon(_ patch: TaxonPatch) async throws -> Taxon
    func updateTaxon(level: TaxonLevel, name: String, with patch: TaxonPatch) async throws -> Taxon
    func deleteTaxon(level: TaxonLevel, name: String) async throws
}

/// Sources that descriptive data is attributed to.
public protocol SourceRepository: Sendable {
    func listSources() async throws -> [Source]
    func source(id: Int) async throws -> Source
    func createSource(_ patch: SourcePatch) async throws -> Source
    func updateSource(id: Int, with patch: SourcePatch) async throws -> Source
    func deleteSource(id: Int) async throws
}

/// Descriptive data about a species from one source.
public protocol SpeciesSourceRepository: Sendable {
    func speciesSources(of name: String) async throws -> [SpeciesSource]
    func speciesSource(of name: String, sourceId: Int) async throws -> SpeciesSource
    func createSpeciesSource(of name: String, with patch: SpeciesSourcePatch) async throws -> SpeciesSource
    func updateSpeciesSource(of name: String, sourceId: Int, with patch: SpeciesSourcePatch) async throws
        -> SpeciesSource
    func deleteSpeciesSource(of name: String, sourceId: Int) async throws
}

/// Read-only views across the whole compendium.
public protocol CatalogRepository: Sendable {
    /// Species by the species rule, taxa and sources whose names contain `query`, at most `limit` of each.
    func search(query: String, limit: Int) async throws -> CatalogSearchResult
    func stats() async throws -> CatalogStats
    /// The export document (`ExportFile`, the original apps' `quercus_data.json`: metadata, sources, and every
    /// species with its taxonomy and attributed sources' data), encoded as `GET /api/v1/export` sends it.
    func exportDocument() async throws -> Data
    /// Throws when the database cannot answer a query.
    func checkReady() async throws
}

/// Every repository over models: what the CLI, the tools and the tests read and write the compendium through.
/// The server also asks for the answers a store writes as bytes (`ServedStore` in OakStoreKit).
public typealias CompendiumStore = SpeciesRepository & TaxonRepository & SourceRepository & SpeciesSourceRepository & NoteRepository & SyncRepository
    & TokenRepository & MaintenanceRepository
    & CatalogRepository

/// Field notes: the app's view of species-source rows.
public protocol NoteRepository: Sendable {
    func notes(species: String?, sourceId: Int) async throws -> [Note]
    func note(id: UUID) async throws -> Note
    func createNote(_ input: NoteInput) async throws -> Note
    /// Updates a note; with `expectedVersion` the note must still be at that version (else 412).
    func updateNote(id: UUID, with input: NoteInput, expectedVersion: Int64?) async throws -> Note
    func deleteNote(id: UUID, expectedVersion: Int64?) async throws
}

/// The history sync keeps: tombstones and push receipts. The pull and the push answer in bytes, written from
/// the rows (`EncodedRepository` in OakStoreKit).
public protocol SyncRepository: Sendable {
    /// Removes tombstones and push receipts older than `horizon`; returns how many tombstones went.
    func compact(olderThan horizon: Date) async throws -> Int
}

/// Named API tokens with abilities, stored only as SHA-256 hashes.
public protocol TokenRepository: Sendable {
    /// Creates a token and returns it with its secret, which is not stored and cannot be shown again.
    func createToken(name: String, abilities: [Ability]) async throws -> (token: APIToken, secret: String)
    func listTokens() async throws -> [APIToken]
    func revokeToken(name: String) async throws
    /// The token a secret belongs to (recording its use), or nil.
    func authenticate(secret: String) async throws -> APIToken?
}

/// Operating the database: pool state, and what the caches of answers derived from the data follow.
public protocol MaintenanceRepository: Sendable {
    /// What the connection pool is doing now.
    var poolStatus: PoolStatus { get }
    /// Changes whenever the data may have changed; answers derived from the data can be cached under it.
    func dataVersion() async throws -> DataVersion
    /// What changed after a change-log position (nil: only where the log is now); a short read.
    func changes(after position: Int64?) async throws -> DataChanges
    /// Fills the in-memory search index, so the first search after a start does not wait for it.
    func prepareSearch() async throws
    /// Lets the export document go when no export was asked for `idle`; true when one was held.
    func releaseIdleExport(idleFor idle: Duration) async -> Bool
}

/// Backups of the whole database written by the server (`POST /backup`, `oak backup`, the daily backup), for
/// a store whose database is a file the server owns. A database server is backed up with its own tools. A
/// capability some stores have: the server is handed it (`ServedStore.backups` in OakStoreKit), never casts for it.
public protocol BackupRepository: Sendable {
    /// Writes a consistent snapshot into `directory`, keeping only the newest `keep` there.
    func backup(into directory: String, keep: Int) async throws -> BackupInfo
}
