import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import OakModels
import OakStore
import Synchronization

/// Answers reads from memory on the connection's event loop, before Hummingbird hands the request to a task and
/// the router, while the data is known to be current without reading the database
/// (`MaintenanceRepository.knownDataVersion`: SQLite between its once-a-second checks of the file, PostgreSQL while
/// change notifications keep the change log's head known):
/// - a GET whose answer the response cache holds;
/// - a catalog search (`/api/v1/search`) the store can make from memory
///   (`CatalogRepository.searchDocumentInMemory`: SQLite's search index, when no taxon or source matches);
/// - a species' record (`/api/v1/species/{name}`) held in memory (`SpeciesRecords`), under any URL.
///
/// Through the router, such a read spends most of its time in the hop to a task and back, the router and the
/// middleware, not in the answer (see BENCHMARKS.md, "Server round 2", items 22 and 25); this path skips them
/// and gives the same answer: the headers and body the router's path gives or
/// keeps (or 304), the rate limit's, security and request-id fields from the same functions the middleware
/// uses, `Date` and `Server` as Hummingbird sets them, and the same log line and metrics.
///
/// Anything else goes on to the router: other methods, a request with a body, an `Origin` (CORS) or
/// `Connection: close`, a read neither the cache nor memory can answer or vouch for, a search with a parameter the
/// route refuses (the router answers the 400), one the rate limit refuses (the router answers the 429), and any request
/// while an earlier one on the connection is still being answered there.
struct CachedReads: Sendable {
    let cache: ResponseCache
    let store: any MaintenanceRepository & CatalogRepository
    let speciesRecords: SpeciesRecords
    let requestLog: RequestLogMiddleware
    let rateLimit: RateLimitMiddleware?
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
        guard path == Self.searchPath, let (query, limit) = try? CatalogController.searchParameters(QueryValues(URI(uri).queryParameters)),
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
        let clientIP = requestLog.clientIP(head.headerFields, socketAddress: socketAddress)
        if let rateLimit, let (_, decision) = rateLimit.take(.get, path, clientIP: clientIP) {
            // A refused read takes no token: the router takes it again and answers the 429.
            guard decision.allowed else { return nil }
            RateLimitMiddleware.stamp(decision, on: &headers)
        }
        SecurityHeadersMiddleware.secure(&headers)
        let requestID = RequestLogMiddleware.requestID(head.headerFields)
        headers.append(HTTPField(name: .requestID, value: requestID))
        headers[.date] = HTTPDate.shared.now
        headers[.server] = ServerConfiguration.serverName
        var logger = logger
        logger[metadataKey: LineLogHandler.requestIDKey] = .string(requestID)
        requestLog.finish(.get, path: path, route: entry.route, status: status.code, since: read.start, clientIP: clientIP, logger: logger)
        requestLog.metrics.recordAnsweredBeforeRouting()
        return Answer(head: HTTPResponse(status: status, headerFields: headers), body: body)
    }

    /// The path of a request target (before its query), as `URI.path` reads it.
    static func path(of uri: String) -> String {
        // By byte: a search by Character walks grapheme clusters.
        guard let query = uri.utf8.firstIndex(of: UInt8(ascii: "?")) else { return uri }
        return String(uri[..<query])
    }
}

/// Puts `CachedReads` in a connection's pipeline, after Hummingbird's connection-state handler (which then sees
/// every request and response, for keep-alive and the idle timeout) and before the hand-over to tasks.
final class CachedReadHandler: HTTPPartHandler {
    private let reads: CachedReads
    /// Requests passed on whose response has not ended: while there is one, answers here would overtake it.
    private var passedOn = 0
    /// The request held to be answered here; its parts are not passed on unless it is.
    private var held: CachedReads.HeldRead?

    init(reads: CachedReads) {
        self.reads = reads
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if passedOn == 0, let read = reads.held(head) {
                held = read
                return
            }
            passedOn += 1
        case .body:
            // A body after all (it had no length): the router answers the request, from its head on.
            if let held { passOn(held.head, context) }
        case .end:
            if let read = held {
                held = nil
                if let answer = reads.answer(read, socketAddress: context.channel.remoteAddress?.ipAddress) {
                    context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
                    if let body = answer.body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
                    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                    return
                }
                passOn(read.head, context)
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { passedOn -= 1 }
        context.write(data, promise: promise)
    }

    /// Hands a held request's head to the router after all.
    private func passOn(_ head: HTTPRequest, _ context: ChannelHandlerContext) {
        held = nil
        passedOn += 1
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}

/// A handler of a connection's decoded HTTP parts: requests in and on, responses out.
protocol HTTPPartHandler: ChannelDuplexHandler, RemovableChannelHandler
where InboundIn == HTTPRequestPart, InboundOut == HTTPRequestPart, OutboundIn == HTTPResponsePart, OutboundOut == HTTPResponsePart {}

/// Hummingbird's HTTP/1 connection with `CachedReadHandler` in its pipeline.
struct CachedReadsHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let base: HTTP1Channel
    let reads: CachedReads

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let state = try pipeline.handler(type: HTTPConnectionStateHandler.self)
            try pipeline.addHandler(CachedReadHandler(reads: reads), position: .after(state))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// The `Date` field's value (RFC 9110's IMF-fixdate, as Hummingbird writes it), made once a second.
final class HTTPDate: Sendable {
    static let shared = HTTPDate()
    private let current = Mutex<(second: Int, text: String)>((-1, ""))
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    var now: String {
        let second = Int(Date().timeIntervalSince1970)
        return current.withLock { cached in
            if cached.second != second { cached = (second, Self.format(second)) }
            return cached.text
        }
    }

    static func format(_ second: Int) -> String {
        var time = time_t(second)
        var parts = tm()
        gmtime_r(&time, &parts)
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[Int(parts.tm_wday)]), \(twoDigits(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec)) GMT"
    }
}
