import Foundation
import NIOCore
import OakModels

/// Species: the compendium's main records, keyed by scientific name.
public protocol SpeciesRepository: Sendable {
    func listSpecies(filter: SpeciesFilter, limit: Int, offset: Int) async throws -> Page<Species>
    func species(named name: String) async throws -> Species
    func speciesFull(named name: String) async throws -> SpeciesFull
    /// The JSON of `speciesFull(named:)` as `GET /species/{name}/full` sends it, written from the rows.
    func encodedSpeciesFull(named name: String) async throws -> ByteBuffer
    func searchSpecies(query: String, limit: Int) async throws -> [Species]
    func createSpecies(_ patch: SpeciesPatch) async throws -> Species
    func updateSpecies(named name: String, with patch: SpeciesPatch) async throws -> Species
    func deleteSpecies(named name: String) async throws
}

extension SpeciesRepository {
    /// The model through `JSONEncoder`; the stores write it from their rows instead.
    public func encodedSpeciesFull(named name: String) async throws -> ByteBuffer {
        ByteBuffer(bytes: try WireJSON.encoder.encode(try await speciesFull(named: name)))
    }
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
    /// Species by the species rule, taxa and sources whose names contain `query`, at most `limit` of each:
    /// the JSON of a `CatalogSearchResult`, as `/api/v1/search` sends it (`search` reads it as the model).
    func searchDocument(query: String, limit: Int) async throws -> ByteBuffer
    /// `searchDocument`'s answer from the data at `version` (`MaintenanceRepository.knownDataVersion`) when it
    /// can be made at once from memory, without waiting or reading the database; else nil (and for a query
    /// `searchDocument` refuses), and the caller asks `searchDocument`.
    func searchDocumentInMemory(query: String, limit: Int, at version: DataVersion) -> ByteBuffer?
    func stats() async throws -> CatalogStats
    func export() async throws -> ExportSnapshot
    /// Throws when the database cannot answer a query.
    func checkReady() async throws
}

/// The encoded export (`ExportFile`, the original apps' `quercus_data.json`: metadata, sources, and every
/// species with its taxonomy and attributed sources' data) with its strong ETag (a hash of the data only).
public struct ExportSnapshot: Sendable {
    public let body: ByteBuffer
    public let etag: String

    public init(body: ByteBuffer, etag: String) {
        self.body = body
        self.etag = etag
    }
}

/// Everything the HTTP server needs from persistence.
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

/// The server side of sync: cursor pulls and batched, idempotent pushes of note changes.
public protocol SyncRepository: Sendable {
    /// Changes after `cursor` in sequence order; no cursor gives a full snapshot. A cursor from before
    /// the compaction horizon (or from another database) answers 410.
    func pull(cursor: String?, limit: Int, entities: [SyncEntity]) async throws -> PulledPage
    /// Applies note changes in order; the results are returned as JSON, the wire form of `PushResponse`.
    /// `cursor`, the device's pull cursor when it sent one, names the history its base versions come from:
    /// one of another history is answered 410 before any change is applied (`PullWindow.sameHistory`).
    func push(_ changes: [PushChange], cursor: String?) async throws -> ByteBuffer
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
    /// The data version when this process knows it without reading the database, else nil (then read it with
    /// `dataVersion()`): SQLite's count of its own writes between its checks of the file for other programs'.
    var knownDataVersion: DataVersion? { get }
    /// What changed after a change-log position (nil: only where the log is now); a short read.
    func changes(after position: Int64?) async throws -> DataChanges
    /// Fills the in-memory search index, so the first search after a start does not wait for it.
    func prepareSearch() async throws
    /// Lets the export document go when no export was asked for `idle`; true when one was held.
    func releaseIdleExport(idleFor idle: Duration) async -> Bool
}

/// Backups of the whole database written by the server (`POST /backup`, `oak backup`, the daily backup), for
/// a store whose database is a file the server owns. A database server is backed up with its own tools.
public protocol BackupRepository: Sendable {
    /// Writes a consistent snapshot into `directory`, keeping only the newest `keep` there.
    func backup(into directory: String, keep: Int) async throws -> BackupInfo
}
