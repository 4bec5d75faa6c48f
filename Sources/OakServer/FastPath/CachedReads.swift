import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import OakModels
import OakStore
import OakStoreKit

/// Answers reads from memory on the connection's event loop, before Hummingbird hands the request to a task and
/// the router, while the data is known to be current without reading the database
/// (`EncodedRepository.knownDataVersion`: SQLite between its once-a-second checks of the file, PostgreSQL while
/// change notifications keep the change log's head known):
/// - a GET whose answer the response cache holds;
/// - a catalog search (`/api/v1/search`) the store can make from memory
///   (`EncodedRepository.searchDocumentInMemory`: SQLite's search index, when no taxon or source matches);
/// - a species' record (`/api/v1/species/{name}`) held in memory (`SpeciesRecords`), under any URL.
///
/// Through the router, such a read spends most of its time in the hop to a task and back, the router and the
/// middleware, not in the answer (see BENCHMARKS.md, "Server round 2", items 22 and 25); this path skips them
/// and gives the same answer: the headers and body the router's path gives or keeps (or 304), finished by the
/// response finisher the middleware chain calls too (`ResponseFinisher`: the rate limit and its fields, the security
/// and request-id fields, the log line and the metrics), and `Date` and `Server` as Hummingbird sets them.
///
/// Anything else goes on to the router: other methods, a request with a body, an `Origin` (CORS) or
/// `Connection: close`, a read neither the cache nor memory can answer or vouch for, a search with a parameter the
/// route refuses (the router answers the 400), one the rate limit refuses (the router answers the 429), and any request
/// while an earlier one on the connection is still being answered there.
struct CachedReads: Sendable {
    let cache: ResponseCache
    let store: any EncodedRepository
    let speciesRecords: SpeciesRecords
    /// What every answer gets on its way out, as on the routed path.
    let finisher: ResponseFinisher
    /// The application's logger, for the request lines.
    let logger: Logger

    /// An answer made here: the response's head and its body (none for a 304).
    struct Answer {
        var head: HTTPResponse
        var body: ByteBuffer?
    }

    /// A request held to be answered here: its head, its path (before the query), its kept answer and when it
    /// arrived.
    struct HeldRead {
        var head: HTTPRequest
        var path: String
        var entry: ResponseCache.Entry
        var start: ContinuousClock.Instant
    }

    /// The catalog search's path, which is also its route (`CatalogController`) as `RequestContext.endpointPath`
    /// names it.
    static let searchPath = APIRoute.search.path
    /// A species' route (`SpeciesController`) as `RequestContext.endpointPath` names it: its path template.
    static let speciesRoute = APIRoute.species.path

    /// The request whose head is `head` with its answer, when it is a GET with no body, no `Origin`, no session
    /// cookie and no `Connection: close` whose answer the cache holds and is known to be current, or that is made from
    /// memory (`madeInMemory`); else nil, and the router answers.
    func held(_ head: HTTPRequest) -> HeldRead? {
        guard head.method == .get, let uri = head.path else { return nil }
        let start = ContinuousClock.now
        let path = Self.path(of: uri)
        guard ResponseCacheMiddleware.isCacheable(path) else { return nil }
        let fields = head.headerFields
        let acceptEncoding = fields[.acceptEncoding]
        // `Connection: close` is the router's to honor: it closes the connection after its answer.
        guard fields[.origin] == nil, fields[.connection] != "close", !WebViewers.carriesSession(fields), fields[.transferEncoding] == nil,
            (fields[.contentLength] ?? "0") == "0", let version = store.knownDataVersion,
            case let key = ResponseCacheMiddleware.key(uri, acceptEncoding: acceptEncoding),
            let entry = cache.currentEntry(for: key, at: version) ?? madeInMemory(uri, path: path, key: key, at: version, acceptEncoding)
        else { return nil }
        return HeldRead(head: head, path: path, entry: entry, start: start)
    }

    /// An answer made from memory at `version`, as the route and the middleware would give it, and kept in the
    /// cache on the middleware's terms (`ResponseCache.keep`): a catalog search or a species' record. Nil for
    /// another path, and whenever the route must answer (see `search` and `speciesRecord`).
    func madeInMemory(_ uri: String, path: String, key: String, at version: DataVersion, _ acceptEncoding: String?) -> ResponseCache.Entry? {
        guard let (headers, body, route) = search(uri, path: path, at: version) ?? speciesRecord(path: path, at: version),
            let entry = try? ResponseCacheMiddleware.entry(headers: headers, body: body, route: route, acceptEncoding: acceptEncoding)
        else { return nil }
        cache.keep(entry, for: key, dependency: ResponseCacheMiddleware.dependency(of: path), madeAt: version)
        return entry
    }

    /// A catalog search's response fields and body, when the store makes it from memory; nil for another path, a
    /// parameter the route refuses (it answers the 400), a search for more than the default page of each kind
    /// (its document, up to 1,000 species, is made and gzipped on a task, not on the loop that serves other
    /// connections), or a search the store cannot make from memory now.
    private func search(_ uri: String, path: String, at version: DataVersion) -> (HTTPFields, ByteBuffer, String)? {
        guard path == Self.searchPath,
            let (query, limit) = try? CatalogController.searchParameters(QueryValues(URI(uri).queryParameters, of: .search)),
            limit <= Pagination.defaultLimit, let body = store.searchDocumentInMemory(query: query, limit: limit, at: version)
        else { return nil }
        return (Response.json(body).headers, body, Self.searchPath)
    }

    /// A species' record held in memory (`SpeciesRecords`), its response fields and body as `GET /species/{name}`
    /// answers it; nil for another path, a name the route refuses, or a species not held (the route reads it, or
    /// answers the 404).
    private func speciesRecord(path: String, at version: DataVersion) -> (HTTPFields, ByteBuffer, String)? {
        // `/species/search` is a route of its own.
        guard let segment = APIRoute.species.parameterValues(in: path)?.first, !APIRoute.searchSpecies.matches(path) else { return nil }
        guard let name = try? OakRequestContext.decodedPathParameter(String(segment), name: "name"),
            let record = speciesRecords.heldRecord(named: name, at: version)
        else { return nil }
        return (SpeciesRecords.response(record).headers, record.body, Self.speciesRoute)
    }

    /// The answer to a held request, or nil when the router must answer it (the rate limit refuses it).
    func answer(_ read: HeldRead, socketAddress: String?) -> Answer? {
        let (head, path, entry) = (read.head, read.path, read.entry)
        guard case (let status, var headers, let body)? = try? ResponseCacheMiddleware.answer(entry, to: head.headerFields) else { return nil }
        var facts = finisher.facts(.get, path: path, headers: head.headerFields, socketAddress: socketAddress, since: read.start)
        // A refused read takes no token: the router takes it again and answers the 429.
        guard finisher.admit(&facts) == nil else { return nil }
        finisher.finish(facts, status: status.code, headers: &headers, route: entry.route, logger: finisher.logger(logger, for: facts))
        headers[.date] = HTTPDate.shared.now
        headers[.server] = ServerConfiguration.serverName
        finisher.metrics.recordAnsweredBeforeRouting()
        return Answer(head: HTTPResponse(status: status, headerFields: headers), body: body)
    }

    /// The path of a request target (before its query), as `URI.path` reads it.
    static func path(of uri: String) -> String {
        // By byte: a search by Character walks grapheme clusters.
        guard let query = uri.utf8.firstIndex(of: UInt8(ascii: "?")) else { return uri }
        return String(uri[..<query])
    }
}
