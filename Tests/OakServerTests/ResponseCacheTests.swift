import Foundation
import Hummingbird
import HummingbirdTesting
import OakModels
@testable import OakStore
import Synchronization
import Testing

@testable import OakServer

@Suite("Response cache")
struct ResponseCacheTests {
    /// Counts how often each route's handler ran.
    final class Calls: Sendable {
        let counts = Mutex<[String: Int]>([:])
        func record(_ path: String) { counts.withLock { $0[path, default: 0] += 1 } }
        subscript(path: String) -> Int { counts.withLock { $0[path] ?? 0 } }
    }

    @Test("small reads and the export are answered from memory until a write, then dropped; large sync pages are not kept")
    func keepsWhatIsWorthIt() async throws {
        let env = try TestEnvironment()
        let calls = Calls()
        let router = Router(context: OakRequestContext.self)
        let cache = ResponseCache()
        router.add(middleware: ResponseCacheMiddleware(cache: cache, store: env.store))
        for (path, size) in [("/api/v1/species/alba", 300), ("/api/v1/export", 400_000), ("/api/v1/sync/pull", 400_000)] {
            router.get(RouterPath(path)) { _, _ in
                calls.record(path)
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(repeating: UInt8(ascii: "x"), count: size)))
            }
        }
        try await Application(router: router).test(.router) { client in
            for _ in 0..<2 {
                for path in ["/api/v1/species/alba", "/api/v1/export", "/api/v1/sync/pull"] {
                    let response = try await client.execute(uri: path, method: .get)
                    #expect(response.status == .ok)
                }
            }
            #expect(calls["/api/v1/species/alba"] == 1)
            #expect(calls["/api/v1/export"] == 1)
            #expect(calls["/api/v1/sync/pull"] == 2)

            _ = try await env.store.createNote(NoteInput(scientificName: "alba"))
            _ = try await client.execute(uri: "/api/v1/species/alba", method: .get)
            #expect(calls["/api/v1/species/alba"] == 2)
            // Kept at the new version, it pushed out what the old version kept (the large export).
            #expect(cache.bytesHeld == 300)
        }
    }

    @Test("over its bounds the cache drops the least recently used entry, and a newer data version drops every older entry")
    func dropsLeastRecentlyUsed() throws {
        let cache = ResponseCache(maxEntries: 3, maxBytes: 1_000)
        func entry(_ size: Int) -> ResponseCache.Entry {
            .init(headers: [:], body: ByteBuffer(repeating: UInt8(ascii: "x"), count: size))
        }
        let version = DataVersion(writes: 1, changeLogHead: 0)
        for key in ["a", "b", "c"] { cache.store(entry(100), for: key, at: version) }
        #expect(cache.entry(for: "a", at: version) != nil)
        cache.store(entry(100), for: "d", at: version)
        #expect(cache.entry(for: "b", at: version) == nil)
        #expect(["a", "c", "d"].allSatisfy { cache.entry(for: $0, at: version) != nil })
        #expect(cache.count == 3 && cache.bytesHeld == 300)

        // Used last in the order a, c, d: 801 bytes more push out the two least recently used (a, then c).
        cache.store(entry(801), for: "e", at: version)
        #expect(cache.entry(for: "a", at: version) == nil && cache.entry(for: "c", at: version) == nil)
        #expect(cache.entry(for: "d", at: version) != nil && cache.entry(for: "e", at: version) != nil)
        #expect(cache.bytesHeld == 901)

        let next = DataVersion(writes: 2, changeLogHead: 0)
        cache.store(entry(10), for: "f", at: next)
        #expect(cache.count == 1 && cache.bytesHeld == 10)
        #expect(cache.entry(for: "d", at: version) == nil)
        #expect(cache.entry(for: "f", at: next) != nil)
    }

    @Test("every list and record kept answers with an ETag, gzipped too, and If-None-Match with that ETag answers 304")
    func etagsOnEveryList() async throws {
        let env = try TestEnvironment()
        try await env.test { client in
            for path in ["/api/v1/species?limit=50", "/api/v1/taxa", "/api/v1/sources", "/api/v1/species/alba", "/api/v1/notes"] {
                let plain = try await client.send(.get, path)
                let etag = try #require(plain.headers[.eTag], "\(path) has no ETag")
                let gzipped = try await client.send(.get, path, headers: [.acceptEncoding: "gzip"])
                #expect(gzipped.headers[.eTag] != nil)
                let again = try await client.send(.get, path, headers: [.ifNoneMatch: etag])
                #expect(again.status == .notModified, "\(path)")
            }
            let list = try await client.send(.get, "/api/v1/species?limit=50", headers: [.acceptEncoding: "gzip"])
            #expect(list.headers[.contentEncoding] == "gzip")
            let speciesTag = try #require(try await client.send(.get, "/api/v1/species?limit=50").headers[.eTag])
            // A write changes what the list says, and so its ETag.
            let before = try await client.send(.get, "/api/v1/sources").headers[.eTag]
            _ = try await client.send(.post, "/api/v1/sources", json: #"{"source_type": "book", "name": "Oaks of the World"}"#)
            #expect(try await client.send(.get, "/api/v1/sources").headers[.eTag] != before)
            // The write emptied the cache, but the species list is the same: rebuilt, it still answers 304.
            #expect(try await client.send(.get, "/api/v1/species?limit=50", headers: [.ifNoneMatch: speciesTag]).status == .notModified)
        }
    }
}
