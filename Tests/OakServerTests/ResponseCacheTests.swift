import CompressNIO
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import OakModels
import Synchronization
import Testing

@testable import OakServer
@testable import OakStore

@Suite("Response cache")
struct ResponseCacheTests {
    /// Counts how often each route's handler ran.
    final class Calls: Sendable {
        let counts = Mutex<[String: Int]>([:])
        func record(_ path: String) { counts.withLock { $0[path, default: 0] += 1 } }
        subscript(path: String) -> Int { counts.withLock { $0[path] ?? 0 } }
    }

    @Test("small reads and the export asked for again are answered from memory until a write that alters them; large sync pages are not kept")
    func keepsWhatIsWorthIt() async throws {
        let env = try await TestEnvironment()
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
            // The first answer is not kept (see `oneOffURLsAreNotKept`), the second is.
            for _ in 0..<3 {
                for path in ["/api/v1/species/alba", "/api/v1/export", "/api/v1/sync/pull"] {
                    let response = try await client.execute(uri: path, method: .get)
                    #expect(response.status == .ok)
                }
            }
            #expect(calls["/api/v1/species/alba"] == 2)
            #expect(calls["/api/v1/export"] == 2)
            #expect(calls["/api/v1/sync/pull"] == 3)

            // A new note does not alter alba's own record, but the export depends on everything; its URL was
            // asked for before, so the new answer is kept at once.
            _ = try await env.store.createNote(NoteInput(scientificName: "alba"))
            for _ in 0..<2 {
                for path in ["/api/v1/species/alba", "/api/v1/export"] { _ = try await client.execute(uri: path, method: .get) }
            }
            #expect(calls["/api/v1/species/alba"] == 2)
            #expect(calls["/api/v1/export"] == 3)
        }
    }

    @Test("an answer is kept the second time its URL is asked for: URLs asked for once neither fill the cache nor push out the rest")
    func oneOffURLsAreNotKept() async throws {
        let env = try await TestEnvironment()
        let calls = Calls()
        let router = Router(context: OakRequestContext.self)
        let cache = ResponseCache(maxEntries: 8)
        router.add(middleware: ResponseCacheMiddleware(cache: cache, store: env.store))
        router.get("/api/v1/species/alba") { _, _ in
            calls.record("alba")
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "alba")))
        }
        try await Application(router: router).test(.router) { client in
            for _ in 0..<2 { #expect(try await client.execute(uri: "/api/v1/species/alba", method: .get).status == .ok) }
            #expect(cache.count == 1)
            for n in 0..<100 {
                let response = try await client.execute(uri: "/api/v1/species/alba?n=\(n)", method: .get)
                #expect(response.status == .ok && response.headers[.eTag] != nil)
            }
            #expect(cache.count == 1)
            #expect(calls["alba"] == 102)
            // The kept answer survived the stream; a one-off URL asked for again is kept from then on.
            _ = try await client.execute(uri: "/api/v1/species/alba", method: .get)
            for _ in 0..<3 { _ = try await client.execute(uri: "/api/v1/species/alba?n=99", method: .get) }
            #expect(calls["alba"] == 103)
            #expect(cache.count == 2)
        }
    }

    @Test("over its bounds the cache drops the least recently used entry; after a change it drops only the entries the change can alter")
    func dropsLeastRecentlyUsed() async throws {
        let cache = ResponseCache(maxEntries: 3, maxBytes: 1_000)
        func entry(_ size: Int) -> ResponseCache.Entry {
            .init(headers: [:], body: ByteBuffer(repeating: UInt8(ascii: "x"), count: size), route: "/test")
        }
        let start = try await cache.catchUp(to: DataVersion(writes: 1, changeLogHead: 0), reads: ChangeReads { _ in DataChanges(head: 10, listingVersion: 1) })
        #expect(start == 10)
        for key in ["a", "b", "c"] { cache.store(entry(100), for: key, dependency: .anyChange, filledAt: start) }
        #expect(cache.entry(for: "a") != nil)
        cache.store(entry(100), for: "d", dependency: .anyChange, filledAt: start)
        #expect(cache.entry(for: "b") == nil)
        #expect(["a", "c", "d"].allSatisfy { cache.entry(for: $0) != nil })
        #expect(cache.count == 3 && cache.bytesHeld == 300)

        // Used last in the order a, c, d: 801 bytes more push out the two least recently used (a, then c).
        cache.store(entry(801), for: "e", dependency: .anyChange, filledAt: start)
        #expect(cache.entry(for: "a") == nil && cache.entry(for: "c") == nil)
        #expect(cache.entry(for: "d") != nil && cache.entry(for: "e") != nil)
        #expect(cache.bytesHeld == 901)

        // A note of alba changed: alba's full record and anything-goes answers go; robur's record stays.
        let big = ResponseCache(maxEntries: 10, maxBytes: 10_000)
        _ = try await big.catchUp(to: DataVersion(writes: 1, changeLogHead: 0), reads: ChangeReads { _ in DataChanges(head: 10, listingVersion: 1) })
        let kept: [(String, ResponseCache.Dependency)] = [
            ("alba", .species("alba")), ("alba/full", .speciesFull("alba")), ("robur/full", .speciesFull("robur")),
            ("search", .listing), ("stats", .anyChange),
        ]
        for (key, dependency) in kept { big.store(entry(10), for: key, dependency: dependency, filledAt: 10) }
        let position = try await big.catchUp(
            to: DataVersion(writes: 2, changeLogHead: 0),
            reads: ChangeReads { after in
                #expect(after == 10)
                return DataChanges(head: 12, listingVersion: 1, speciesWithChangedRows: ["alba"])
            })
        #expect(position == 12)
        #expect(["alba", "robur/full", "search"].allSatisfy { big.entry(for: $0) != nil })
        #expect(big.entry(for: "alba/full") == nil && big.entry(for: "stats") == nil)
        // An answer computed before that refresh is not kept: it may predate the change.
        big.store(entry(10), for: "late", dependency: .anyChange, filledAt: 10)
        #expect(big.entry(for: "late") == nil)
        // One the change cannot alter is kept: robur's record computed while alba's note changed, unlike alba's full record.
        big.store(entry(10), for: "robur late", dependency: .species("robur"), filledAt: 10)
        big.store(entry(10), for: "alba/full late", dependency: .speciesFull("alba"), filledAt: 10)
        #expect(big.entry(for: "robur late") != nil && big.entry(for: "alba/full late") == nil)
        // The same version again reads nothing; a change log too far ahead drops everything.
        _ = try await big.catchUp(
            to: DataVersion(writes: 2, changeLogHead: 0),
            reads: ChangeReads { _ in
                Issue.record("read changes for a version already checked")
                return DataChanges(head: 12, listingVersion: 1)
            })
        _ = try await big.catchUp(
            to: DataVersion(writes: 3, changeLogHead: 0), reads: ChangeReads { _ in DataChanges(head: 5_000, listingVersion: 1, everything: true) })
        #expect(big.count == 0)
    }

    @Test(
        "a note edit drops its species' full record and what depends on everything; species records, other species, lists and searches stay until their own data changes"
    )
    func dropsOnlyWhatAChangeAlters() async throws {
        let env = try await TestEnvironment()
        let calls = Calls()
        let router = Router(context: OakRequestContext.self)
        router.add(middleware: ResponseCacheMiddleware(cache: ResponseCache(), store: env.store))
        let paths = [
            "/api/v1/species/alba", "/api/v1/species/alba/full", "/api/v1/species/rubra/full", "/api/v1/search",
            "/api/v1/species", "/api/v1/export",
        ]
        for path in paths {
            router.get(RouterPath(path)) { _, _ in
                calls.record(path)
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: path)))
            }
        }
        let note = try await env.store.createNote(NoteInput(scientificName: "alba"))
        try await Application(router: router).test(.router) { client in
            func getAll() async throws {
                for path in paths { #expect(try await client.execute(uri: path, method: .get).status == .ok) }
            }
            func counts() -> [Int] { paths.map { calls[$0] } }
            try await getAll()
            try await getAll()
            try await getAll()
            #expect(counts() == [2, 2, 2, 2, 2, 2])

            // A field of alba's note: its full record and the export are built again, nothing else.
            var leaf = NoteFieldsPatch()
            try leaf.set("leaf", to: "Lobed, edited")
            _ = try await env.store.updateNote(id: note.id, with: NoteInput(fields: leaf), expectedVersion: nil)
            try await getAll()
            #expect(counts() == [2, 3, 2, 2, 2, 3])

            // A new note on rubra adds a source row (counts, names): lists and searches too, and rubra's full record.
            var names = NoteFieldsPatch()
            try names.set("commonNames", to: "Northern red oak")
            _ = try await env.store.createNote(NoteInput(scientificName: "rubra", fields: names))
            try await getAll()
            #expect(counts() == [2, 3, 3, 3, 3, 4])

            // alba's own row: its record, its full record, lists and searches.
            var author = SpeciesPatch()
            author.author = .value("L. (edited)")
            _ = try await env.store.updateSpecies(named: "alba", with: author)
            try await getAll()
            #expect(counts() == [3, 4, 3, 4, 4, 5])
        }
    }

    @Test("every list and record kept answers with an ETag, gzipped too, and If-None-Match with that ETag answers 304")
    func etagsOnEveryList() async throws {
        let env = try await TestEnvironment()
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

    @Test("an answer over 8 KB is kept deflated and sent as it was, with the same ETag; a gzipped one is kept as is")
    func largeAnswersAreKeptDeflated() async throws {
        let env = try await TestEnvironment()
        let router = Router(context: OakRequestContext.self)
        let cache = ResponseCache()
        router.add(middleware: ResponseCacheMiddleware(cache: cache, store: env.store))
        router.add(middleware: CompressionMiddleware())
        let record = (0..<400).map { #"{"source_id": \#($0), "local_names": ["white oak"]}"# }.joined(separator: ",")
        router.get("/api/v1/species/alba/full") { _, _ in Response.json(ByteBuffer(string: "[\(record)]")) }
        try await Application(router: router).test(.router) { client in
            var answers: [TestResponse] = []
            for _ in 0..<3 { answers.append(try await client.send(.get, "/api/v1/species/alba/full")) }
            #expect(answers.allSatisfy { String(buffer: $0.body) == "[\(record)]" })
            #expect(Set(answers.map { $0.headers[.eTag] }).count == 1)
            #expect(cache.count == 1 && cache.bytesHeld < record.utf8.count / 5)

            let plainBytes = cache.bytesHeld
            var gzipped: [TestResponse] = []
            for _ in 0..<3 { gzipped.append(try await client.send(.get, "/api/v1/species/alba/full", headers: [.acceptEncoding: "gzip"])) }
            #expect(gzipped.allSatisfy { $0.headers[.contentEncoding] == "gzip" && $0.body == gzipped[0].body })
            var body = gzipped[0].body
            #expect(String(buffer: try body.decompress(with: .gzip())) == "[\(record)]")
            #expect(cache.count == 2 && cache.bytesHeld == plainBytes + gzipped[0].body.readableBytes)
        }
    }

    @Test("an export nobody asked for during the idle time is let go by the response cache and the store; the next one is the same")
    func idleExportIsReleased() async throws {
        let env = try await TestEnvironment()
        let cache = ResponseCache()
        let router = buildRouter(configuration: env.configuration, store: env.store, rateLimiter: nil, responseCache: cache)
        let logger = Logger(label: "test")
        let notYetIdle = IdleExportRelease(responseCache: cache, store: env.store, idle: .seconds(3600), logger: logger)
        let idle = IdleExportRelease(responseCache: cache, store: env.store, idle: .zero, logger: logger)
        try await Application(router: router).test(.router) { client in
            // Asked for twice: kept by the response cache (and by the store, which built it).
            let first = try await client.send(.get, "/api/v1/export")
            _ = try await client.send(.get, "/api/v1/export")
            let etag = try #require(first.headers[.eTag])
            #expect(cache.bytesHeld == first.body.readableBytes)

            // Read within the idle time: nothing goes.
            #expect(try await client.send(.get, "/api/v1/export", headers: [.ifNoneMatch: etag]).status == .notModified)
            await notYetIdle.releaseIfIdle()
            #expect(cache.bytesHeld == first.body.readableBytes)
            #expect(await env.store.releaseIdleExport(idleFor: .seconds(3600)) == false)

            // Idle: both let go (the store has nothing left to release).
            await idle.releaseIfIdle()
            #expect(cache.bytesHeld == 0)
            #expect(await env.store.releaseIdleExport(idleFor: .zero) == false)

            // The next export is built again: the same ETag, so a client holding it still gets 304, and the same body.
            #expect(try await client.send(.get, "/api/v1/export", headers: [.ifNoneMatch: etag]).status == .notModified)
            #expect(try await client.send(.get, "/api/v1/export").body == first.body)
        }
    }

    @Test("what a kept answer depends on and whether a path is kept at all follow the routes of the catalogue (APIRoute)")
    func dependenciesFollowTheCatalogue() {
        let dependencies: [(String, ResponseCache.Dependency)] = [
            ("/api/v1/search", .listing), ("/api/v1/species", .listing), ("/api/v1/species/search", .listing),
            ("/api/v1/species/alba", .species("alba")), ("/api/v1/species/%C3%97%20bebbiana", .species("bebbiana")),
            ("/api/v1/species/alba/full", .speciesFull("alba")), ("/api/v1/species/alba/sources", .speciesFull("alba")),
            ("/api/v1/species/alba/sources/3", .speciesFull("alba")),
            // Not exactly a route's path (the router answers them, or not): any change drops them.
            ("/api/v1/species/alba/", .anyChange), ("/api/v1/species/alba/bogus", .anyChange), ("/api/v1//species/alba", .anyChange),
            ("/api/v1/taxa", .anyChange), ("/api/v1/export", .anyChange), ("/species/alba", .anyChange),
        ]
        for (path, dependency) in dependencies {
            #expect(ResponseCacheMiddleware.dependency(of: path) == dependency, "\(path)")
        }
        let cacheable = APIRoute.all.filter { $0.method == .get && ResponseCacheMiddleware.isCacheable($0.path) }.map(\.path)
        #expect(
            Set(cacheable)
                == Set(
                    APIRoute.all.filter { $0.method == .get && $0.path.hasPrefix(APIRoute.apiRoot + "/") }.map(\.path)
                        + APIRoute.pages.map(\.path)
                ).subtracting([APIRoute.apiHealth.path, APIRoute.apiHealthReady.path, APIRoute.verifyKey.path]))
        for path in ["/search", "/taxonomy", "/sources", "/sources/1", "/species/alba", "/taxa/section/Quercus", "/assets/oak.css"] {
            #expect(WebController.isPage(path), "\(path)")
        }
        for path in ["/", "/docs", "/health", "/metrics", "/sign-in", "/edit/species/alba", "/new/species", "/events/species/alba", "/searching"] {
            #expect(!WebController.isPage(path), "\(path)")
        }
    }
}
