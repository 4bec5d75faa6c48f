import Foundation
import NIOCore
import OakModels
import OakStore

/// The answers a store writes as the wire's JSON straight from its rows, for the server to send as they are
/// (`JSONOutput`), and what the server's fast path asks to answer without waiting. Only the server asks for
/// these; the CLI and the SDK read models (`CompendiumStore`).
public protocol EncodedRepository: Sendable {
    /// The JSON of `speciesFull(named:)` as `GET /species/{name}/full` sends it, written from the rows.
    func encodedSpeciesFull(named name: String) async throws -> ByteBuffer
    /// The JSON of `search(query:limit:)`'s `CatalogSearchResult`, as `/api/v1/search` sends it.
    func searchDocument(query: String, limit: Int) async throws -> ByteBuffer
    /// `searchDocument`'s answer from the data at `version` (`knownDataVersion`) when it can be made at once from
    /// memory, without waiting or reading the database; else nil (and for a query `searchDocument` refuses), and
    /// the caller asks `searchDocument`.
    func searchDocumentInMemory(query: String, limit: Int, at version: DataVersion) -> ByteBuffer?
    /// The data version when this process knows it without reading the database, else nil (then read it with
    /// `dataVersion()`): SQLite's count of its own writes between its checks of the file for other programs'.
    var knownDataVersion: DataVersion? { get }
    func export() async throws -> ExportSnapshot
    /// Changes after `cursor` in sequence order; no cursor gives a full snapshot. A cursor from before
    /// the compaction horizon (or from another database) answers 410. When more follow, `following` is called
    /// with the next page's cursor as soon as it is known, before this page is written (`PullReadAhead` starts
    /// reading that page meanwhile).
    func pull(cursor: String?, limit: Int, entities: [SyncEntity], following: (@Sendable (String) -> Void)?) async throws -> PulledPage
    /// How many pages of one pull are worth reading ahead of its client at most (`PullReadAhead`): more than one only
    /// where a page takes longer to read than its client takes to parse it and its read runs on two cores.
    var pullPagesReadAhead: Int { get }
    /// Applies note changes in order; the results are returned as JSON, the wire form of `PushResponse`.
    /// `cursor`, the device's pull cursor when it sent one, names the history its base versions come from:
    /// one of another history is answered 410 before any change is applied (`PullWindow.sameHistory`).
    func push(_ changes: [PushChange], cursor: String?) async throws -> ByteBuffer
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

extension EncodedRepository {
    /// A page of changes after `cursor` (`pull(cursor:limit:entities:following:)`, with no one told of the next page).
    public func pull(cursor: String?, limit: Int, entities: [SyncEntity]) async throws -> PulledPage {
        try await pull(cursor: cursor, limit: limit, entities: entities, following: nil)
    }
}

/// Everything the HTTP server serves from: the repositories over models, the answers written as bytes, and the
/// capabilities only some backends have, which each backend declares (so the server never casts for them).
public protocol ServedStore: CompendiumStore, EncodedRepository {
    /// Backups the server writes itself (`POST /backup`, the daily backup), or nil for a database backed up with
    /// its own tools (the server then answers 409 naming them).
    var backups: (any BackupRepository)? { get }
    /// What `oak serve` says about the database at start beyond its name (the server's version and the connection
    /// settings an operator tunes), or nil when there is nothing more to say.
    func startupSummary() async throws -> String?
}

extension CatalogRepository where Self: EncodedRepository {
    /// A search as its model, read from its document.
    public func search(query: String, limit: Int) async throws -> CatalogSearchResult {
        let document = try await searchDocument(query: query, limit: limit)
        return try JSONDecoder().decode(CatalogSearchResult.self, from: Data(document.readableBytesView))
    }

    /// The export's bytes, as the server sends them.
    public func exportDocument() async throws -> Data {
        Data(try await export().body.readableBytesView)
    }
}
