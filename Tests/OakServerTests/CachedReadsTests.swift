import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OakModels
import Testing

@testable import OakServer

@Suite("Cached reads answered before routing")
struct CachedReadsTests {
    /// The count of reads answered before routing, from `/metrics`.
    private func answeredBeforeRouting(_ client: any TestClientProtocol) async throws -> Int {
        try await metric(client, "oak_response_cache_answered_before_routing_total")
    }

    /// A metric without labels, from `/metrics` (0 when absent).
    private func metric(_ client: any TestClientProtocol, _ name: String) async throws -> Int {
        let text = String(buffer: try await client.send(.get, "/metrics").body)
        let prefix = name + " "
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)).map(Int.init) } ?? 0
    }

    /// A read answered before routing. Once a second SQLite's version is read again (for other programs' writes),
    /// by a read that goes through the router; on a loaded machine a request can fall on it, so it is asked again
    /// (up to 30 times: when every suite runs at once on two cores, requests can take most of a second).
    private func earlyAnswer(_ client: any TestClientProtocol, _ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        for _ in 0..<30 {
            let before = try await answeredBeforeRouting(client)
            let response = try await client.send(.get, uri, key: nil, headers: headers)
            if try await answeredBeforeRouting(client) == before + 1 { return response }
        }
        throw NeverAnsweredEarly(uri: uri)
    }

    /// A read answered before routing under a URL never asked for before (`uri` with a new `try` parameter each
    /// time), so not from the response cache: made from memory.
    private func madeInMemory(_ client: any TestClientProtocol, _ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        for attempt in 0..<30 {
            let before = try await answeredBeforeRouting(client)
            let response = try await client.send(.get, "\(uri)&try=\(attempt)", key: nil, headers: headers)
            if try await answeredBeforeRouting(client) == before + 1 { return response }
        }
        throw NeverAnsweredEarly(uri: uri)
    }

    struct NeverAnsweredEarly: Error {
        let uri: String
    }

    /// A read answered by the router: asked a second after the last read, when SQLite's version is read again
    /// by a read that goes through the router.
    private func routedAnswer(_ client: any TestClientProtocol, _ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        for _ in 0..<5 {
            try await Task.sleep(for: .milliseconds(1100))
            let before = try await answeredBeforeRouting(client)
            let response = try await client.send(.get, uri, key: nil, headers: headers)
            if try await answeredBeforeRouting(client) == before { return response }
        }
        throw NeverAnsweredEarly(uri: "\(uri) (always answered early)")
    }

    /// Asks for a URI until it is answered before routing: seen, then kept by the router's path, then from the cache.
    private func askThrice(_ client: any TestClientProtocol, _ uri: String, headers: HTTPFields = [:]) async throws -> (
        routed: TestResponse, early: TestResponse
    ) {
        try await client.send(.get, uri, key: nil, headers: headers)
        let routed = try await client.send(.get, uri, key: nil, headers: headers)
        return (routed, try await earlyAnswer(client, uri, headers: headers))
    }

    /// Expects an answer made from memory to be the router's: status, body, and every field but those that vary
    /// per request, in the same order.
    private func expectSameAnswer(_ early: TestResponse, as routed: TestResponse, _ label: String) {
        let varying: Set<HTTPField.Name> = [.requestID, .date]
        #expect(routed.status == .ok && early.status == .ok, "\(label)")
        #expect(early.body == routed.body, "\(label)")
        #expect(early.headers.map(\.name) == routed.headers.map(\.name), "\(label)")
        #expect(early.headers.filter { !varying.contains($0.name) } == routed.headers.filter { !varying.contains($0.name) }, "\(label)")
    }

    @Test("a read the response cache holds is answered before routing with the router's status, headers and body, and its 304")
    func sameAnswerAsTheRouter() async throws {
        let env = try await TestEnvironment(backend: .sqlite)
        let configuration = env.configuration(readsPerSecond: 1000)
        try await env.test(.live, configuration: configuration) { client in
            let varying: Set<HTTPField.Name> = [.requestID, .date, .rateLimitRemaining, .rateLimitReset]
            let reads: [(String, HTTPFields)] = [
                ("/api/v1/species/alba", [:]), ("/api/v1/species?limit=50", [.acceptEncoding: "gzip"]), ("/api/v1/species/alba/full", [:]),
            ]
            for (uri, headers) in reads {
                let (routed, early) = try await askThrice(client, uri, headers: headers)
                #expect(routed.status == .ok && early.status == .ok)
                #expect(early.body == routed.body, "\(uri)")
                #expect(early.headers.map(\.name) == routed.headers.map(\.name), "\(uri)")
                #expect(early.headers.filter { !varying.contains($0.name) } == routed.headers.filter { !varying.contains($0.name) }, "\(uri)")
                #expect(early.headers[.requestID] != routed.headers[.requestID])

                let etag: String = try #require(routed.headers[.eTag])
                var conditional = headers
                conditional[.ifNoneMatch] = etag
                let notModified = try await earlyAnswer(client, uri, headers: conditional)
                #expect(notModified.status == .notModified && notModified.body.readableBytes == 0)
                #expect(notModified.headers[.eTag] == routed.headers[.eTag] && notModified.headers[.xContentTypeOptions] == "nosniff")
            }

            // Counted as any other request, under its route: the species route's 304s (answered before routing).
            let metrics = String(buffer: try await client.send(.get, "/metrics").body)
            #expect(metrics.contains(#"oak_http_requests_total{method="GET",route="/api/v1/species/{name}",status="304"} "#))
        }
    }

    @Test(
        "a catalog search the cache does not hold is answered from memory before routing, with the router's status, headers and body (plain and gzipped), and its 304"
    )
    func searchAnsweredFromMemory() async throws {
        let env = try await TestEnvironment(backend: .sqlite)
        try await env.test(.live) { client in
            let searches: [(String, HTTPFields)] = [("q=alba", [:]), ("q=ii&limit=40", [.acceptEncoding: "gzip"])]
            for (query, headers) in searches {
                let early = try await madeInMemory(client, "/api/v1/search?\(query)", headers: headers)
                // Another URI for the same search, so that the response cache cannot answer it.
                expectSameAnswer(early, as: try await routedAnswer(client, "/api/v1/search?\(query)&n=1", headers: headers), query)
                #expect(early.headers[.contentEncoding] == headers[.acceptEncoding], "\(query)")

                let etag: String = try #require(early.headers[.eTag])
                var conditional = headers
                conditional[.ifNoneMatch] = etag
                let notModified = try await madeInMemory(client, "/api/v1/search?\(query)&n=2", headers: conditional)
                #expect(notModified.status == .notModified && notModified.body.readableBytes == 0)
                #expect(notModified.headers[.eTag] == early.headers[.eTag] && notModified.headers[.xContentTypeOptions] == "nosniff")
            }
            let metrics = String(buffer: try await client.send(.get, "/metrics").body)
            #expect(metrics.contains(#"oak_http_requests_total{method="GET",route="/api/v1/search",status="304"} "#))
        }
    }

    @Test(
        "a search answered from memory sees a write at once, and a search that matches a taxon or source, asks for more than 50 of each, or has a parameter the route refuses, is answered by the router"
    )
    func searchFromMemoryFollowsWritesAndRefusals() async throws {
        let env = try await TestEnvironment(backend: .sqlite)
        try await env.test(.live) { client in
            let found = { (response: TestResponse) in names(try response.object()["species"] as? [[String: Any]] ?? []) }
            // Asked twice on the connection, the answer is kept in the response cache (once a routed read has
            // brought the cache to the data's version); the write must drop it.
            try await client.send(.get, "/api/v1/species/alba", key: nil)
            let cacheBytes = { try await self.metric(client, "oak_response_cache_bytes") }
            let emptyCache = try await cacheBytes()
            #expect(try found(try await earlyAnswer(client, "/api/v1/search?q=zyxmemori")) == [])
            #expect(try found(try await earlyAnswer(client, "/api/v1/search?q=zyxmemori")) == [])
            #expect(try await cacheBytes() > emptyCache)
            let created = try await client.send(.post, "/api/v1/species", json: #"{"scientific_name": "zyxmemoriana"}"#)
            #expect(created.status == .created)
            #expect(try found(try await client.send(.get, "/api/v1/search?q=zyxmemori", key: nil)) == ["zyxmemoriana"])
            #expect(try found(try await madeInMemory(client, "/api/v1/search?q=zyxmemori&limit=5")) == ["zyxmemoriana"])

            let before = try await answeredBeforeRouting(client)
            let taxon = try await client.send(.get, "/api/v1/search?q=lobat", key: nil)
            #expect(taxon.status == .ok)
            #expect(names(try taxon.object()["taxa"] as? [[String: Any]] ?? [], "name") == ["Lobatae"])
            let source = try await client.send(.get, "/api/v1/search?q=inatur", key: nil)
            #expect(source.status == .ok)
            #expect(names(try source.object()["sources"] as? [[String: Any]] ?? [], "name") == ["iNaturalist"])
            let large = try await client.send(.get, "/api/v1/search?q=a&limit=200", key: nil)
            #expect(large.status == .ok)
            #expect((try large.object()["species"] as? [Any])?.count ?? 0 > 50)
            let refusals = [
                ("/api/v1/search", "q"), ("/api/v1/search?q=%20%20", "q"), ("/api/v1/search?q=alba&limit=many", "limit"),
                ("/api/v1/search?q=alba&limit=0", "limit"), ("/api/v1/search?q=al%00ba", "q"),
            ]
            for (uri, field) in refusals {
                let refused = try await client.send(.get, uri, key: nil)
                #expect(refused.status == .badRequest, "\(uri)")
                #expect(try refused.error().code == "VALIDATION_ERROR", "\(uri)")
                #expect(try refused.invalidFields() == [field], "\(uri)")
            }
            #expect(try await answeredBeforeRouting(client) == before)
        }
    }

    @Test(
        "a species' record held in memory is answered before routing under a URL the cache has not seen, with the router's headers and body, and its 304; a write is seen at once; an unknown species or a refused name goes to the router"
    )
    func speciesRecordAnsweredFromMemory() async throws {
        let env = try await TestEnvironment(backend: .sqlite)
        try await env.test(.live) { client in
            // The first read of a species reads its record and holds it.
            #expect(try await client.send(.get, "/api/v1/species/alba", key: nil).status == .ok)
            let reads: [(String, HTTPFields)] = [("/api/v1/species/alba?n=1", [:]), ("/api/v1/species/%61lba?n=2", [.acceptEncoding: "gzip"])]
            for (uri, headers) in reads {
                let early = try await madeInMemory(client, uri, headers: headers)
                expectSameAnswer(early, as: try await routedAnswer(client, uri + "&m=1", headers: headers), uri)

                let etag: String = try #require(early.headers[.eTag])
                var conditional = headers
                conditional[.ifNoneMatch] = etag
                let notModified = try await madeInMemory(client, uri + "&m=2", headers: conditional)
                #expect(notModified.status == .notModified && notModified.body.readableBytes == 0)
            }

            let edited = try await client.send(.patch, "/api/v1/species/alba", json: #"{"author": "Edited in memory"}"#)
            #expect(edited.status == .ok)
            #expect(try await client.send(.get, "/api/v1/species/alba?n=3", key: nil).object()["author"] as? String == "Edited in memory")
            #expect(try await madeInMemory(client, "/api/v1/species/alba?n=4").object()["author"] as? String == "Edited in memory")

            let before = try await answeredBeforeRouting(client)
            let unknown = try await client.send(.get, "/api/v1/species/zyxnotaspecies", key: nil)
            #expect(unknown.status == .notFound)
            #expect(try unknown.error().code == "NOT_FOUND")
            let refused = try await client.send(.get, "/api/v1/species/al%00ba", key: nil)
            #expect(refused.status == .badRequest)
            #expect(try refused.invalidFields() == ["name"])
            #expect(try await answeredBeforeRouting(client) == before)
        }
    }

    @Test("a write through the server, or by another program on the file, is seen by the next read: no early answer outlives the data")
    func writesAreSeenAtOnce() async throws {
        let env = try await TestEnvironment(backend: .sqlite)
        try await env.test(.live) { client in
            let author = { (response: TestResponse) in try response.object()["author"] as? String }
            _ = try await askThrice(client, "/api/v1/species/alba")

            let edited = try await client.send(.patch, "/api/v1/species/alba", json: #"{"author": "Edited through the server"}"#)
            #expect(edited.status == .ok)
            #expect(try author(try await client.send(.get, "/api/v1/species/alba", key: nil)) == "Edited through the server")

            try await DatabaseQueue(path: env.database).write { db in
                try db.execute(sql: "UPDATE oak_entries SET author = 'Written by another tool' WHERE scientific_name = 'alba'")
            }
            // Within the second SQLite takes to look at the file again, then at once.
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try author(try await client.send(.get, "/api/v1/species/alba", key: nil)) == "Written by another tool")
        }
    }

    @Test("pipelined requests are answered in order: a cached read does not overtake a request the router is still answering")
    func pipelinedRequestsStayInOrder() async throws {
        let env = try await TestEnvironment(backend: .sqlite)
        try await env.test(.live) { client in
            _ = try await askThrice(client, "/api/v1/species/alba")
            let port = try #require(client.port)
            let raw = try await RawConnection.offPool {
                try RawConnection.exchange(
                    port: port,
                    "GET /api/v1/sync/pull HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                        + "GET /api/v1/species/alba HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                ).text
            }
            let responses = raw.components(separatedBy: "HTTP/1.1 200 OK\r\n").dropFirst().map { $0.components(separatedBy: "\r\n\r\n").last ?? "" }
            #expect(responses.count == 2)
            #expect(responses.first?.hasPrefix(#"{"changes":"#) == true)
            #expect(responses.last?.contains(#""scientific_name":"alba""#) == true && responses.last?.contains(#""changes""#) == false)
        }
    }

    @Test("a cached read sent with Connection: close is answered, and the connection closed after it")
    func connectionCloseIsHonored() async throws {
        let env = try await TestEnvironment(backend: .sqlite)
        try await env.test(.live) { client in
            let (_, early) = try await askThrice(client, "/api/v1/species/alba")
            let port = try #require(client.port)
            let exchange = try await RawConnection.offPool {
                try RawConnection.exchange(port: port, "GET /api/v1/species/alba HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            }
            #expect(exchange.closed)
            #expect(exchange.text.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(exchange.text.hasSuffix(String(buffer: early.body)))
        }
    }

    @Test("a CORS read and a read the rate limit refuses are answered by the router: CORS headers, and a 429 with the envelope")
    func corsAndRefusalsGoToTheRouter() async throws {
        let env = try await TestEnvironment()
        let configuration = env.configuration(readsPerSecond: 4)
        try await env.test(.live, configuration: configuration, rateLimiter: RateLimiter(clock: { 0 })) { client in
            let origin: HTTPFields = [.origin: "https://oakcompendium.org"]
            // Three reads: the third is answered from the cache (before routing on SQLite, by the router on PostgreSQL).
            for _ in 0..<3 { try await client.send(.get, "/api/v1/species/alba", key: nil) }
            let before = try await answeredBeforeRouting(client)
            let cors = try await client.send(.get, "/api/v1/species/alba", key: nil, headers: origin)
            #expect(cors.status == .ok && cors.headers[.accessControlAllowOrigin] == "https://oakcompendium.org")
            #expect(cors.headers[.rateLimitRemaining] == "0")
            let refused = try await client.send(.get, "/api/v1/species/alba", key: nil)
            #expect(refused.status == .tooManyRequests)
            #expect(try refused.error().code == "RATE_LIMITED")
            #expect(refused.headers[.retryAfter] != nil)
            #expect(try await answeredBeforeRouting(client) == before)
        }
    }

    @Test(
        "a read answered before routing and the same read answered by the router take their tokens from one rate limit, and carry the same rate-limit fields"
    )
    func earlyAndRoutedReadsShareOneRateLimit() async throws {
        let env = try await TestEnvironment(backend: .sqlite)
        let configuration = env.configuration(readsPerSecond: 8)
        try await env.test(.live, configuration: configuration, rateLimiter: RateLimiter(clock: { 0 })) { client in
            var remaining: [String] = []
            var early = 0
            for _ in 0..<8 {
                let before = try await answeredBeforeRouting(client)
                let response = try await client.send(.get, "/api/v1/species/alba", key: nil)
                #expect(response.status == .ok && response.headers[.rateLimitLimit] == "8")
                remaining.append(response.headers[.rateLimitRemaining] ?? "none")
                if try await answeredBeforeRouting(client) == before + 1 { early += 1 }
            }
            // The first is the router's (it reads the record and holds it); most of the others are answered before routing.
            #expect(remaining == ["7", "6", "5", "4", "3", "2", "1", "0"])
            #expect(early > 0 && early < 8)
            let before = try await answeredBeforeRouting(client)
            let refused = try await client.send(.get, "/api/v1/species/alba", key: nil)
            #expect(refused.status == .tooManyRequests && refused.headers[.rateLimitRemaining] == "0")
            #expect(try await answeredBeforeRouting(client) == before)
        }
    }

    @Test("a read answered before routing logs the router's line for the same read: the same fields, path, status and its request id")
    func earlyAndRoutedReadsLogOneLine() async throws {
        let env = try await TestEnvironment(backend: .sqlite)
        let capture = LogCapture()
        var configuration = env.configuration
        configuration.logLevel = .info
        try await env.test(.live, configuration: configuration, logger: capture.logger) { client in
            try await client.send(.get, "/api/v1/species/alba", key: nil)
            _ = try await earlyAnswer(client, "/api/v1/species/alba", headers: [.requestID: "answered-early"])
            _ = try await routedAnswer(client, "/api/v1/species/alba", headers: [.requestID: "answered-routed"])
        }
        // A line without its duration, which varies: `request client=… method=GET path=… request_id=… status=200`.
        func line(_ requestID: String) throws -> String {
            let line = try #require(capture.all.last { $0.hasPrefix("request ") && $0.contains("request_id=\(requestID)") })
            return line.split(separator: " ").filter { !$0.hasPrefix("duration_ms=") }.joined(separator: " ")
                .replacingOccurrences(of: requestID, with: "ID")
        }
        let early = try line("answered-early")
        #expect(early == (try line("answered-routed")))
        #expect(early.hasPrefix("request client=") && early.hasSuffix("method=GET path=/api/v1/species/alba request_id=ID status=200"), "\(early)")
        #expect(capture.all.contains { $0.hasPrefix("request ") && $0.contains("request_id=answered-early") && $0.contains("duration_ms=") })
    }
}
