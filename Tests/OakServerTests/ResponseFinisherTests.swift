import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import OakModels
import Testing

@testable import OakServer

@Suite("The response finisher, shared by the middleware chain and the fast path")
struct ResponseFinisherTests {
    /// The fields the finisher adds to an answer to an allowed origin under a rate limit, in the order it adds them.
    static let finisherFields: [String] = [
        "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Access-Control-Allow-Origin", "Access-Control-Expose-Headers",
        "Vary", "X-Content-Type-Options", "X-Frame-Options", "Content-Security-Policy", "Cache-Control", "X-Request-ID",
    ]

    @Test("the finisher adds the rate limit's fields, then CORS's, the security fields and the request id, after the route's own")
    func finisherAddsItsFieldsInOneOrder() {
        let finisher = ResponseFinisher(
            requestLog: RequestLog(metrics: ServerMetrics(pool: { nil }, cachedBytes: { 0 }), trustProxy: false),
            rateLimit: RateLimit(limiter: RateLimiter(clock: { 0 }), limits: RateLimits(readsPerSecond: 5)),
            cors: CORSPolicy(allowedOrigins: ["https://oakcompendium.org"]))
        var facts = finisher.facts(
            .get, path: "/api/v1/stats", headers: [.origin: "https://oakcompendium.org", .requestID: "given-id"], socketAddress: "127.0.0.1")
        #expect(finisher.admit(&facts) == nil)
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        finisher.finish(facts, status: 200, headers: &headers, route: "/api/v1/stats", logger: Logger(label: "test"))
        #expect(headers.map(\.name.canonicalName) == (["Content-Type"] + Self.finisherFields).map { $0.lowercased() })
        #expect(headers[.requestID] == "given-id" && headers[.rateLimitRemaining] == "4")
        #expect(headers[.accessControlAllowOrigin] == "https://oakcompendium.org")
    }

    @Test("a routed answer to an allowed origin under a rate limit carries the finisher's fields in the finisher's order")
    func routedAnswerIsFinishedByTheFinisher() async throws {
        let env = try await TestEnvironment()
        let configuration = env.configuration(readsPerSecond: 5)
        try await env.test(configuration: configuration, rateLimiter: RateLimiter(clock: { 0 })) { client in
            let response = try await client.send(.get, "/api/v1/stats", key: nil, headers: [.origin: "https://oakcompendium.org"])
            #expect(response.status == .ok)
            let expected = Self.finisherFields.map { $0.lowercased() }
            #expect(response.headers.map(\.name.canonicalName).filter(expected.contains) == expected)
        }
    }
}
