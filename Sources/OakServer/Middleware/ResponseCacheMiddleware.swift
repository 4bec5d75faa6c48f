import CompressNIO
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import OakModels
import OakStore

/// Serves repeated reads from memory: a successful GET under `/api/v1`, or of a page (`WebController`) to a browser
/// that is not signed in, asked for a second time is kept, with its headers, until a change it depends on (see `ResponseCache.Dependency`): a note
/// edit drops its species' full record, not every answer. It sits outside compression, so a gzipped body is kept
/// too (keyed by whether the client accepts gzip). Every answer it keeps gets a strong ETag (a hash of the body,
/// unless the route set one), and it answers `If-None-Match` itself.
struct ResponseCacheMiddleware: RouterMiddleware {
    let cache: ResponseCache
    let store: any MaintenanceRepository
    /// How the cache follows the change log (shared with the species records).
    let changeReads: ChangeReads

    init(cache: ResponseCache, store: any MaintenanceRepository, changeReads: ChangeReads? = nil) {
        self.cache = cache
        self.store = store
        self.changeReads = changeReads ?? ChangeReads(store.changes(after:))
    }

    func handle(_ request: Request, context: OakRequestContext, next: (Request, OakRequestContext) async throws -> Response)
        async throws -> Response
    {
        guard request.method == .get, Self.isCacheable(request.uri.path), !WebViewers.carriesSession(request.headers) else {
            return try await next(request, context)
        }
        var context = context
        let version = try await store.dataVersion()
        context.dataVersion = version
        let position = try await cache.catchUp(to: version, reads: changeReads)
        let key = Self.key(request.uri.description, acceptEncoding: request.headers[.acceptEncoding])
        if let entry = cache.entry(for: key) {
            return try Self.answer(entry, to: request)
        }
        let response = try await next(request, context)
        guard response.status == .ok, let length = response.body.contentLength,
            length <= (Self.keepsAnySize(request.uri.path) ? cache.maxBytes / 2 : cache.maxEntryBytes)
        else {
            return response
        }
        let body = try await BodyCollector.collect(response.body)
        var headers = response.headers
        if headers[.eTag] == nil { headers[.eTag] = Self.etag(of: body) }
        let entry = ResponseCache.Entry(headers: headers, body: body, route: context.endpointPath ?? "NotFound")
        if cache.admits(key) {
            // The export's buffer is the export cache's own: kept as it is, and let go when idle.
            let isExport = Self.keepsAnySize(request.uri.path)
            cache.store(
                isExport ? entry : try entry.keptForm(), for: key, dependency: Self.dependency(of: request.uri.path),
                filledAt: position, dropsWhenIdle: isExport)
        }
        return try Self.answer(entry, to: request)
    }

    /// What a cacheable path's answer depends on, by route (`APIRoute`): a species' record, its full record and
    /// source rows, the species lists and searches, or (every other route, and a path that is not exactly a
    /// route's) any change.
    static func dependency(of path: String) -> ResponseCache.Dependency {
        if listingRoutes.contains(where: { $0.matches(path) }) { return .listing }
        if let name = APIRoute.species.parameterValues(in: path)?.first { return .species(DataChanges.bareName(String(name).percentDecoded)) }
        for route in speciesFullRoutes {
            if let name = route.parameterValues(in: path)?.first { return .speciesFull(DataChanges.bareName(String(name).percentDecoded)) }
        }
        return .anyChange
    }

    /// The routes whose answers list or search species (`Dependency.listing`).
    static let listingRoutes: [APIRoute] = [.search, .listSpecies, .searchSpecies]
    /// The routes whose answers hold a species' source rows (`Dependency.speciesFull`).
    static let speciesFullRoutes: [APIRoute] = [.speciesFull, .speciesSources, .speciesSource]

    /// The key of a request's answer: its URI (path and query as sent) and whether the client takes gzip.
    static func key(_ uri: String, acceptEncoding: String?) -> String {
        "\(CompressionMiddleware.acceptsGzip(acceptEncoding) ? "gzip" : "plain") \(uri)"
    }

    static func answer(_ entry: ResponseCache.Entry, to request: Request) throws -> Response {
        let (status, headers, body) = try answer(entry, to: request.headers)
        guard let body else { return Response(status: status, headers: headers) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    /// The kept answer, or a 304 with no body when the request (its header fields) already holds it
    /// (`If-None-Match` with its ETag). A 304's fields replace those the client kept, so it carries the answer's
    /// own content security policy (a page's allows its stylesheet) rather than the default one.
    static func answer(_ entry: ResponseCache.Entry, to request: HTTPFields) throws -> (HTTPResponse.Status, HTTPFields, ByteBuffer?) {
        if let etag = entry.headers[.eTag], request.ifNoneMatchMatches(etag) {
            return (.notModified, entry.headers.filter { [.eTag, .cacheControl, .contentSecurityPolicy].contains($0.name) }, nil)
        }
        return (.ok, entry.headers, try entry.sentBody())
    }

    /// The answer a route's response (its `headers` and `body`) made in memory gets without the router
    /// (`CachedReads`): the fields compression and this middleware add (the ETag, unless the route set one), as
    /// on the routed path.
    static func entry(headers: HTTPFields, body: ByteBuffer, route: String, acceptEncoding: String?) throws -> ResponseCache.Entry {
        var (headers, body) = (headers, body)
        if CompressionMiddleware.compresses(headers, length: body.readableBytes, acceptEncoding: acceptEncoding) {
            body = try CompressionMiddleware.gzip(body, headers: &headers)
        }
        if headers[.eTag] == nil { headers[.eTag] = etag(of: body) }
        return ResponseCache.Entry(headers: headers, body: body, route: route)
    }

    /// A strong ETag for a body, from its SHA-256.
    static func etag(of body: ByteBuffer) -> String {
        body.withUnsafeReadableBytes { SHA256.hash(data: $0) }.strongETag
    }

    /// The export's body is the export cache's own buffer, so keeping it costs no memory; other large
    /// answers (sync pages, asked for once per device) are not worth the memory of a small server.
    static func keepsAnySize(_ path: String) -> Bool {
        path == APIRoute.export.path
    }

    /// Reads whose answer depends only on the URI and the data (not on who asks): every path under the API but
    /// those of the key check (who asks) and health (the moment), and the pages'.
    static func isCacheable(_ path: String) -> Bool {
        (path.hasPrefix(apiPrefix) && !path.hasPrefix(authPrefix) && !path.hasPrefix(APIRoute.apiHealth.path)) || WebController.isPage(path)
    }

    private static let apiPrefix = APIRoute.apiRoot + "/"
    /// The folder of `APIRoute.verifyKey`.
    private static let authPrefix = APIRoute.apiRoot + "/auth/"
}

/// The entries of the response cache, bounded in count and bytes; the least recently used go first.
/// Every lookup and store is O(1): entries sit in a doubly linked list (most recent at the head) threaded
/// through an array, beside a dictionary from key to position. After a write, the changes since the
/// entries were current are read once (`refresh`) and only the entries they can alter are dropped.
final class ResponseCache: FollowsChanges, @unchecked Sendable {
    struct Entry {
        var headers: HTTPFields
        var body: ByteBuffer
        /// The route that answered (`RequestContext.endpointPath`), for metrics.
        var route: String
        /// The length of the body as sent when `body` holds it deflated (see `keptForm`); nil when
        /// `body` is what is sent.
        var inflatedLength: Int? = nil

        /// Bodies larger than this are kept deflated.
        static let deflateAbove = 8 << 10

        /// The entry as it is kept, in a buffer of its own size (a body grown while it was encoded has up to
        /// twice its size in room): a body over `deflateAbove` is deflated, since a full record keeps in about a
        /// quarter of its size and inflates in microseconds (see BENCHMARKS.md, "Server round 2", item 18). A body
        /// already gzipped for the client hardly shrinks, and is kept as is.
        func keptForm() throws -> Entry {
            var kept = self
            guard body.readableBytes > Self.deflateAbove, headers[.contentEncoding] == nil else {
                guard body.capacity > body.readableBytes else { return self }
                kept.body = ByteBuffer(bytes: body.readableBytesView)
                return kept
            }
            var plain = body
            let deflated = try plain.compress(with: .deflate(configuration: .init(compressionLevel: .fastestCompression)))
            kept.body = ByteBuffer(bytes: deflated.readableBytesView)
            kept.inflatedLength = body.readableBytes
            return kept
        }

        /// The body to send.
        func sentBody() throws -> ByteBuffer {
            guard let inflatedLength else { return body }
            var deflated = body
            var plain = ByteBuffer()
            plain.reserveCapacity(inflatedLength)
            try deflated.decompress(to: &plain, with: .deflate())
            return plain
        }
    }

    /// What a kept answer depends on. Species names are bare (`DataChanges.bareName`).
    enum Dependency: Hashable {
        /// Any change at all (most routes).
        case anyChange
        /// Species lists and searches: any species, taxon or source change, or a listing-version move (a source
        /// row added or removed, local names changed).
        case listing
        /// A species' own record: a change of that species' row.
        case species(String)
        /// A species' full record and source rows: that species' row, its source rows, or any source.
        case speciesFull(String)

        func isAltered(by changes: DataChanges, listingMoved: Bool) -> Bool {
            switch self {
            case .anyChange: !changes.isEmpty || listingMoved
            case .listing: !changes.species.isEmpty || changes.taxa || changes.sources || listingMoved
            case .species(let name): changes.species.contains(name)
            case .speciesFull(let name):
                changes.species.contains(name) || changes.speciesWithChangedRows.contains(name) || changes.unknownRows
                    || changes.sources
            }
        }
    }

    private struct Node {
        var key: String
        var entry: Entry
        var dependency: Dependency
        var newer: Int
        var older: Int
        /// When an answer kept with `dropsWhenIdle` was last kept or read (see `dropIdleEntries`).
        var lastRead: ContinuousClock.Instant?
    }

    private static let none = -1
    let lock = NSLock()
    private var positions: [String: Int] = [:]
    private var nodes: [Node] = []
    /// Positions in `nodes` no entry uses.
    private var free: [Int] = []
    private var newestUsed = ResponseCache.none
    private var oldestUsed = ResponseCache.none
    private var bytes = 0
    /// Hashes of the keys asked for recently (see `admits`).
    private var seenKeys = Set<Int>()
    /// Where the entries are current in the change log.
    var follower = ChangeFollower()
    let maxEntries: Int
    let maxBytes: Int
    /// The largest answer kept, but for the export (see `ResponseCacheMiddleware.keepsAnySize`).
    let maxEntryBytes: Int

    /// The default bounds hold every species record, full record, page and a search per species of the
    /// benchmark catalog (734 species with 28 sources each: 17 MB, most of it full records) beside the export
    /// (8 MB): with less room the full records do not fit, and the read mix goes to the database (see
    /// BENCHMARKS.md, "Server round 2", item 4).
    init(maxEntries: Int = 4096, maxBytes: Int = 32 << 20, maxEntryBytes: Int = 256 << 10) {
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
        self.maxEntryBytes = maxEntryBytes
    }

    /// Drops the entries a change can alter (under `lock`, see `FollowsChanges`).
    func drop(_ changed: DataChanges, listingMoved: Bool) {
        guard !changed.everything else { return removeAll() }
        var position = newestUsed
        while position != Self.none {
            let older = nodes[position].older
            if nodes[position].dependency.isAltered(by: changed, listingMoved: listingMoved) { remove(position) }
            position = older
        }
    }

    func entry(for key: String) -> Entry? {
        lock.withLock { entryUnderLock(for: key) }
    }

    /// The entry for a key when the entries are current at `version` (`catchUp` brought them there), else
    /// nil: the caller cannot read the changes since.
    func currentEntry(for key: String, at version: DataVersion) -> Entry? {
        lock.withLock { follower.isDue(for: version) ? nil : entryUnderLock(for: key) }
    }

    private func entryUnderLock(for key: String) -> Entry? {
        guard let position = positions[key] else { return nil }
        unlink(position)
        linkAsNewest(position)
        if nodes[position].lastRead != nil { nodes[position].lastRead = .now }
        return nodes[position].entry
    }

    /// Whether the answer to a key that missed is worth keeping: only when the key was asked for before (since
    /// the keys seen were last forgotten). A stream of URLs asked for once (a crawler, `?n=1`, `?n=2`, …) then
    /// costs no copy, store and eviction each (a noticeable part of an uncached record's time), and does not push
    /// out what is asked for again (see BENCHMARKS.md, "Server round 2", item 25). Keys are remembered by hash,
    /// and forgotten all at once past four times `maxEntries` of them.
    func admits(_ key: String) -> Bool {
        lock.withLock {
            if seenKeys.count >= maxEntries * 4 { seenKeys.removeAll(keepingCapacity: true) }
            return !seenKeys.insert(key.hashValue).inserted
        }
    }

    /// The bytes of the bodies kept.
    var bytesHeld: Int { lock.withLock { bytes } }

    /// The number of entries kept.
    var count: Int { lock.withLock { positions.count } }

    /// Keeps an answer made without the router from the data at `version` (`CachedReads.madeInMemory`), on the
    /// middleware's terms: when its key was asked for before (`admits`) and the entries are current at `version`.
    func keep(_ entry: Entry, for key: String, dependency: Dependency, madeAt version: DataVersion) {
        guard admits(key), let position = lock.withLock({ follower.isDue(for: version) ? nil : Optional(follower.position) }),
            let kept = try? entry.keptForm()
        else { return }
        store(kept, for: key, dependency: dependency, filledAt: position)
    }

    /// Keeps an answer computed after `refresh` answered `position`, unless the entries were brought further
    /// meanwhile by changes that can alter it (it may be stale). One kept with `dropsWhenIdle` goes once nobody
    /// read it for a while (`dropIdleEntries`).
    func store(_ entry: Entry, for key: String, dependency: Dependency, filledAt position: Int64?, dropsWhenIdle: Bool = false) {
        lock.withLock {
            guard follower.isCurrent(filledAt: position, unlessAlteredBy: dependency.isAltered(by:listingMoved:)) else { return }
            if let position = positions[key] { remove(position) }
            let node = Node(
                key: key, entry: entry, dependency: dependency, newer: Self.none, older: Self.none, lastRead: dropsWhenIdle ? .now : nil)
            let position: Int
            if let reused = free.popLast() {
                position = reused
                nodes[position] = node
            } else {
                position = nodes.count
                nodes.append(node)
            }
            positions[key] = position
            linkAsNewest(position)
            bytes += entry.body.readableBytes
            while positions.count > maxEntries || bytes > maxBytes, oldestUsed != Self.none {
                remove(oldestUsed)
            }
        }
    }

    /// Drops the answers kept with `dropsWhenIdle` (the export) that nobody read for `idle`, so a document asked
    /// for in a burst does not stay in memory between bursts. Returns how many such answers are still kept.
    @discardableResult
    func dropIdleEntries(idleFor idle: Duration) -> Int {
        lock.withLock {
            let now = ContinuousClock.now
            var kept = 0
            var position = newestUsed
            while position != Self.none {
                let older = nodes[position].older
                if let lastRead = nodes[position].lastRead {
                    if now - lastRead >= idle { remove(position) } else { kept += 1 }
                }
                position = older
            }
            return kept
        }
    }

    private func removeAll() {
        positions.removeAll(keepingCapacity: true)
        nodes.removeAll(keepingCapacity: true)
        free.removeAll(keepingCapacity: true)
        newestUsed = Self.none
        oldestUsed = Self.none
        bytes = 0
    }

    private func remove(_ position: Int) {
        unlink(position)
        positions[nodes[position].key] = nil
        bytes -= nodes[position].entry.body.readableBytes
        // Drop the body now rather than when the position is reused.
        nodes[position].entry = Entry(headers: [:], body: ByteBuffer(), route: "")
        free.append(position)
    }

    private func unlink(_ position: Int) {
        let (newer, older) = (nodes[position].newer, nodes[position].older)
        if newer == Self.none { newestUsed = older } else { nodes[newer].older = older }
        if older == Self.none { oldestUsed = newer } else { nodes[older].newer = newer }
    }

    private func linkAsNewest(_ position: Int) {
        nodes[position].newer = Self.none
        nodes[position].older = newestUsed
        if newestUsed != Self.none { nodes[newestUsed].newer = position }
        newestUsed = position
        if oldestUsed == Self.none { oldestUsed = position }
    }
}
