import Foundation
import HTTPTypes
import Hummingbird
import OakStore

/// Serves repeated reads from memory: a successful GET under `/api/v1` is kept, with its headers, until
/// the data may have changed (`dataVersion`). It sits outside compression, so a gzipped body is kept too
/// (keyed by whether the client accepts gzip), and answers `If-None-Match` itself.
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
            if let etag = entry.headers[.eTag], request.ifNoneMatchMatches(etag) {
                return Response(status: .notModified, headers: entry.headers.filter { $0.name == .eTag || $0.name == .cacheControl })
            }
            return Response(status: .ok, headers: entry.headers, body: .init(byteBuffer: entry.body))
        }
        let response = try await next(request, context)
        guard response.status == .ok, let length = response.body.contentLength,
            length <= (Self.keepsAnySize(request.uri.path) ? cache.maxBytes / 2 : cache.maxEntryBytes)
        else {
            return response
        }
        let body = try await BodyCollector.collect(response.body)
        cache.store(ResponseCache.Entry(headers: response.headers, body: body), for: key, at: version)
        return Response(status: .ok, headers: response.headers, body: .init(byteBuffer: body))
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

/// The entries of the response cache, bounded in count and bytes (least recently used go first).
final class ResponseCache: @unchecked Sendable {
    struct Entry {
        var headers: HTTPFields
        var body: ByteBuffer
    }

    private struct Slot {
        var entry: Entry
        var version: DataVersion
        var lastUsed: UInt64
    }

    private let lock = NSLock()
    private var slots: [String: Slot] = [:]
    private var bytes = 0
    private var tick: UInt64 = 0
    /// The newest data version an entry was kept for.
    private var newest: DataVersion?
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
            guard var slot = slots[key], slot.version == version else { return nil }
            tick &+= 1
            slot.lastUsed = tick
            slots[key] = slot
            return slot.entry
        }
    }

    /// The bytes of the bodies kept.
    var bytesHeld: Int { lock.withLock { bytes } }

    func store(_ entry: Entry, for key: String, at version: DataVersion) {
        lock.withLock {
            tick &+= 1
            // Entries of an older version can never be served again: they go as soon as a newer one is kept.
            if newest.map({ $0 < version }) ?? true {
                newest = version
                for (staleKey, slot) in slots where slot.version < version {
                    bytes -= slot.entry.body.readableBytes
                    slots[staleKey] = nil
                }
            }
            if let old = slots[key] { bytes -= old.entry.body.readableBytes }
            slots[key] = Slot(entry: entry, version: version, lastUsed: tick)
            bytes += entry.body.readableBytes
            // Then, over the bounds, the least recently used go.
            while slots.count > maxEntries || bytes > maxBytes, let oldest = slots.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
                bytes -= oldest.value.entry.body.readableBytes
                slots[oldest.key] = nil
            }
        }
    }
}
