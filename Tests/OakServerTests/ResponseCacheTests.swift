import Foundation
import Hummingbird
import HummingbirdTesting
import OakModels
import OakStore
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
}
