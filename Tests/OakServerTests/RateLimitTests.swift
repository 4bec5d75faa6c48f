import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import OakServer

/// A rate-limit clock the test moves by hand.
final class FakeSeconds: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 1000.0
    var now: Double { lock.withLock { value } }
    func advance(_ seconds: Double) { lock.withLock { value += seconds } }
}

@Suite("Rate limiting")
struct RateLimitTests {
    func limited(_ env: TestEnvironment, trustProxy: Bool = false) -> ServerConfiguration {
        var configuration = env.configuration
        configuration.rateLimits = RateLimits()
        configuration.trustProxy = trustProxy
        return configuration
    }

    @Test("reads: 10 per second per IP, then 429 with Retry-After and the envelope; refilled after a second")
    func readLimit() async throws {
        let env = try await TestEnvironment()
        let clock = FakeSeconds()
        let limiter = RateLimiter(clock: { clock.now })
        try await env.test(configuration: limited(env), rateLimiter: limiter) { client in
            for index in 0..<10 {
                let response = try await client.send(.get, "/api/v1/stats")
                #expect(response.status == .ok)
                #expect(response.headers[.init("X-RateLimit-Limit")!] == "10")
                #expect(response.headers[.init("X-RateLimit-Remaining")!] == String(9 - index))
                #expect(response.headers[.init("X-RateLimit-Reset")!] != nil)
            }
            let refused = try await client.send(.get, "/api/v1/stats")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.retryAfter] == "1")
            #expect(try refused.error().code == "RATE_LIMITED")
            clock.advance(1)
            #expect(try await client.send(.get, "/api/v1/stats").status == .ok)
        }
    }

    @Test("an error answer to a limited request (404, 400, 401) carries the X-RateLimit fields of the token it took")
    func errorAnswersCarryTheFields() async throws {
        let env = try await TestEnvironment()
        try await env.test(configuration: limited(env), rateLimiter: RateLimiter(clock: { 1000 })) { client in
            let missing = try await client.send(.get, "/api/v1/species/nosuchoak")
            #expect(missing.status == .notFound)
            #expect(missing.headers[.init("X-RateLimit-Limit")!] == "10")
            #expect(missing.headers[.init("X-RateLimit-Remaining")!] == "9")
            #expect(missing.headers[.init("X-RateLimit-Reset")!] != nil)
            let invalid = try await client.send(.get, "/api/v1/species?limit=zero")
            #expect(invalid.status == .badRequest)
            #expect(invalid.headers[.init("X-RateLimit-Remaining")!] == "8")
            let unauthorized = try await client.send(.post, "/api/v1/sources", json: #"{"source_type": "book", "name": "B"}"#, key: nil)
            #expect(unauthorized.status == .unauthorized)
            #expect(unauthorized.headers[.init("X-RateLimit-Limit")!] == "5", "a write's bucket")
            #expect(unauthorized.headers[.init("X-RateLimit-Remaining")!] == "4")
        }
    }

    @Test("writes: 5 per second per IP, counted apart from reads")
    func writeLimit() async throws {
        let env = try await TestEnvironment()
        let clock = FakeSeconds()
        try await env.test(configuration: limited(env), rateLimiter: RateLimiter(clock: { clock.now })) { client in
            for index in 0..<5 {
                let response = try await client.send(.post, "/api/v1/sources", json: #"{"source_type": "book", "name": "B\#(index)"}"#)
                #expect(response.status == .created)
            }
            let refused = try await client.send(.post, "/api/v1/sources", json: #"{"source_type": "book", "name": "B5"}"#)
            #expect(refused.status == .tooManyRequests)
            #expect(try await env.count("SELECT COUNT(*) FROM sources WHERE name = 'B5'") == 0)
            #expect(try await client.send(.get, "/api/v1/sources").status == .ok)
        }
    }

    @Test("backups: 1 per minute")
    func backupLimit() async throws {
        let env = try await TestEnvironment(backend: .sqlite)
        let clock = FakeSeconds()
        try await env.test(configuration: limited(env), rateLimiter: RateLimiter(clock: { clock.now })) { client in
            #expect(try await client.send(.post, "/api/v1/backup").status == .created)
            let refused = try await client.send(.post, "/api/v1/backup")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.retryAfter] == "60")
            clock.advance(60)
            env.clock.advance(60)
            #expect(try await client.send(.post, "/api/v1/backup").status == .created)
        }
    }

    @Test("health endpoints are exempt")
    func healthExempt() async throws {
        let env = try await TestEnvironment()
        try await env.test(configuration: limited(env), rateLimiter: RateLimiter(clock: { 0 })) { client in
            for _ in 0..<30 {
                let response = try await client.send(.get, "/health")
                #expect(response.status == .ok)
                #expect(response.headers[.init("X-RateLimit-Limit")!] == nil)
            }
        }
    }

    @Test("the pages' stylesheet, script and icon are exempt; the pages themselves count as reads")
    func pageFilesExempt() async throws {
        let env = try await TestEnvironment()
        try await env.test(configuration: limited(env), rateLimiter: RateLimiter(clock: { 0 })) { client in
            for _ in 0..<12 {
                for file in ["/assets/oak.css", "/assets/oak.js", "/assets/oak.svg"] {
                    let response = try await client.send(.get, file, key: nil)
                    #expect(response.status == .ok, "\(file)")
                    #expect(response.headers[.init("X-RateLimit-Limit")!] == nil)
                }
            }
            for _ in 0..<10 { #expect(try await client.send(.get, "/taxonomy", key: nil).status == .ok) }
            #expect(try await client.send(.get, "/taxonomy", key: nil).status == .tooManyRequests)
        }
    }

    @Test("limits are configurable, including off")
    func configurable() async throws {
        let env = try await TestEnvironment()
        let configuration = env.configuration(readsPerSecond: 2)
        try await env.test(configuration: configuration, rateLimiter: RateLimiter(clock: { 0 })) { (client: any TestClientProtocol) async throws in
            #expect(try await client.send(.get, "/api/v1/stats").status == .ok)
            #expect(try await client.send(.get, "/api/v1/stats").status == .ok)
            #expect(try await client.send(.get, "/api/v1/stats").status == .tooManyRequests)
        }
        try await env.test { (client: any TestClientProtocol) async throws in
            for _ in 0..<30 { #expect(try await client.send(.get, "/api/v1/stats").status == .ok) }
        }
    }

    @Test("the client IP comes from a proxy header only when the trusted-proxy option is set")
    func proxyHeaders() async throws {
        let env = try await TestEnvironment()
        try await env.test(configuration: limited(env, trustProxy: true), rateLimiter: RateLimiter(clock: { 0 })) { client in
            for _ in 0..<10 { try await client.send(.get, "/api/v1/stats", headers: [.init("Fly-Client-IP")!: "203.0.113.7"]) }
            #expect(try await client.send(.get, "/api/v1/stats", headers: [.init("Fly-Client-IP")!: "203.0.113.7"]).status == .tooManyRequests)
            // Another client behind the same proxy has its own bucket.
            #expect(try await client.send(.get, "/api/v1/stats", headers: [.init("X-Forwarded-For")!: "198.51.100.2, 10.0.0.1"]).status == .ok)
        }
        try await env.test(configuration: limited(env, trustProxy: false), rateLimiter: RateLimiter(clock: { 0 })) { client in
            for index in 0..<10 { try await client.send(.get, "/api/v1/stats", headers: [.init("Fly-Client-IP")!: "203.0.113.\(index)"]) }
            // Untrusted headers are ignored: all ten came from the same socket.
            #expect(try await client.send(.get, "/api/v1/stats", headers: [.init("Fly-Client-IP")!: "203.0.113.99"]).status == .tooManyRequests)
        }
    }

    @Test("IPv6 clients share a bucket per /64 network; other networks and IPv4 clients have their own")
    func ipv6Networks() async throws {
        let env = try await TestEnvironment()
        try await env.test(configuration: limited(env, trustProxy: true), rateLimiter: RateLimiter(clock: { 0 })) { client in
            var statuses: [String: HTTPResponse.Status] = [:]
            let addresses =
                (1...10).map { "2001:db8:aa:bb::\(String($0, radix: 16))" }
                + ["2001:db8:aa:bb:1234:5678:9abc:def0", "2001:db8:aa:bc::1", "::ffff:203.0.113.9"]
            for ip in addresses {
                statuses[ip] = try await client.send(.get, "/api/v1/stats", headers: [.init("Fly-Client-IP")!: ip]).status
            }
            #expect(addresses.prefix(10).allSatisfy { statuses[$0] == .ok })
            #expect(statuses["2001:db8:aa:bb:1234:5678:9abc:def0"] == .tooManyRequests)
            #expect(statuses["2001:db8:aa:bc::1"] == .ok)
            #expect(statuses["::ffff:203.0.113.9"] == .ok)
        }
        #expect(RateLimit.bucket(of: "2001:DB8:AA:BB::7") == "2001:db8:aa:bb::/64")
        #expect(RateLimit.bucket(of: "::ffff:203.0.113.9") == "203.0.113.9")
        #expect(RateLimit.bucket(of: "203.0.113.9") == "203.0.113.9")
        #expect(RateLimit.bucket(of: "not-an-ip") == "not-an-ip")
    }

    @Test("bucket memory is bounded: a flood of distinct IPs evicts idle clients")
    func boundedMemory() {
        let clock = FakeSeconds()
        let limiter = RateLimiter(maxClients: 100, clock: { clock.now })
        for index in 0..<5_000 {
            _ = limiter.take("read 10.\(index / 65_536).\(index / 256 % 256).\(index % 256)", policy: .perSecond(10))
            if index % 50 == 0 { clock.advance(0.5) }
        }
        #expect(limiter.trackedClients <= 100)
        // A client that is still limited keeps its bucket.
        for _ in 0..<10 { _ = limiter.take("read busy", policy: .perSecond(10)) }
        #expect(!limiter.take("read busy", policy: .perSecond(10)).allowed)
    }
}
