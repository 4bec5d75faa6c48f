import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import OakModels
import OakStore

/// Serves repeated reads from memory: a successful GET under `/api/v1` is kept, with its headers, until
/// the data may have changed (`dataVersion`). It sits outside compression, so a gzipped body is kept too
/// (keyed by whether the client accepts gzip). Every answer it keeps gets a strong ETag (a hash of the
/// body, unless the route set one), and it answers `If-None-Match` itself.
struct ResponseCacheMiddleware: RouterMiddleware {
    let cache: ResponseCache
    let store: any MaintenanceRepository

    func handle(_ request: Request, context: OakRequestContext, next: (Request, OakRequestContext) async throws -> Response)
        async throws -> Response
    {
        guard request.method == .get, Self.isCacheable(request.uri.path) else { return try await next(request, context) }
        let version = try await store.dataVersion()
        let key = "\(CompressionMiddleware.acceptsGzip(request.headers[.acceptEncoding]) ? "gzip" : "plain") \(request.uri)"
        if let entry = cache.entry(for: key, at: version) {
            return Self.answer(entry, to: request)
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
        let entry = ResponseCache.Entry(headers: headers, body: body)
        cache.store(entry, for: key, at: version)
        return Self.answer(entry, to: request)
    }

    /// The kept answer, or a 304 when the request already holds it (`If-None-Match` with its ETag).
    static func answer(_ entry: ResponseCache.Entry, to request: Request) -> Response {
        if let etag = entry.headers[.eTag], request.ifNoneMatchMatches(etag) {
            return Response(status: .notModified, headers: entry.headers.filter { $0.name == .eTag || $0.name == .cacheControl })
        }
        return Response(status: .ok, headers: entry.headers, body: .init(byteBuffer: entry.body))
    }

    /// A strong ETag for a body, from its SHA-256.
    static func etag(of body: ByteBuffer) -> String {
        body.withUnsafeReadableBytes { SHA256.hash(data: $0) }.strongETag
    }

    /// The export's body is the export cache's own buffer, so keeping it costs no memory; other large
    /// answers (sync pages, asked for once per device) are not worth the memory of a small server.
    static func keepsAnySize(_ path: String) -> Bool {
        path == "/api/v1/export"
    }

    /// Reads whose answer depends only on the URI and the data (not on who asks).
    static func isCacheable(_ path: String) -> Bool {
        path.hasPrefix("/api/v1/") && !path.hasPrefix("/api/v1/auth/") && !path.hasPrefix("/api/v1/health")
    }
}

/// The entries of the response cache, bounded in count and bytes; the least recently used go first.
/// Every operation is O(1): entries sit in a doubly linked list (most recent at the head) threaded through
/// an array, beside a dictionary from key to position.
final class ResponseCache: @unchecked Sendable {
    struct Entry {
        var headers: HTTPFields
        var body: ByteBuffer
    }

    private struct Node {
        var key: String
        var entry: Entry
        var version: DataVersion
        var newer: Int
        var older: Int
    }

    private static let none = -1
    private let lock = NSLock()
    private var positions: [String: Int] = [:]
    private var nodes: [Node] = []
    /// Positions in `nodes` no entry uses.
    private var free: [Int] = []
    private var newestUsed = ResponseCache.none
    private var oldestUsed = ResponseCache.none
    private var bytes = 0
    /// The newest data version an entry was kept for.
    private var newestVersion: DataVersion?
    let maxEntries: Int
    let maxBytes: Int
    /// The largest answer kept, but for the export (see `ResponseCacheMiddleware.keepsAnySize`).
    let maxEntryBytes: Int

    init(maxEntries: Int = 1024, maxBytes: Int = 32 << 20, maxEntryBytes: Int = 256 << 10) {
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
        self.maxEntryBytes = maxEntryBytes
    }

    func entry(for key: String, at version: DataVersion) -> Entry? {
        lock.withLock {
            guard let position = positions[key], nodes[position].version == version else { return nil }
            unlink(position)
            linkAsNewest(position)
            return nodes[position].entry
        }
    }

    /// The bytes of the bodies kept.
    var bytesHeld: Int { lock.withLock { bytes } }

    /// The number of entries kept.
    var count: Int { lock.withLock { positions.count } }

    func store(_ entry: Entry, for key: String, at version: DataVersion) {
        lock.withLock {
            // Entries of an older version can never be served again: all go when a newer version is kept.
            if newestVersion.map({ $0 < version }) ?? true {
                newestVersion = version
                removeAll()
            }
            if let position = positions[key] { remove(position) }
            let node = Node(key: key, entry: entry, version: version, newer: Self.none, older: Self.none)
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
        nodes[position].entry = Entry(headers: [:], body: ByteBuffer())
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
