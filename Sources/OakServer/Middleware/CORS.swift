import HTTPTypes

/// Cross-origin access for an allow-list of origins (`http://localhost:*` allows any port).
/// Other origins get no CORS headers. The response finisher (`ResponseFinisher`) applies it outside rate limiting, so
/// a 429 still carries them, and answers a preflight before the rate limit is asked.
struct CORSPolicy: Sendable {
    let allowedOrigins: [String]

    static let allowedMethods = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
    static let allowedHeaders = "Accept, Authorization, Content-Type, X-API-Key, X-Request-ID, If-Match, If-None-Match"
    static let exposedHeaders = "ETag, Retry-After, X-Request-ID, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset"

    /// The request's `Origin` when it is allowed; nil when there is none or it is not allowed.
    func allowedOrigin(_ headers: HTTPFields) -> String? {
        guard let origin = headers[.origin], isAllowed(origin) else { return nil }
        return origin
    }

    /// The fields of a preflight's answer (a 204) from an allowed origin.
    static func preflightFields(origin: String) -> HTTPFields {
        [
            .accessControlAllowOrigin: origin, .vary: "Origin", .accessControlAllowMethods: allowedMethods,
            .accessControlAllowHeaders: allowedHeaders, .accessControlMaxAge: "600",
        ]
    }

    /// Whether a request is a preflight: `OPTIONS` with `Access-Control-Request-Method`.
    static func isPreflight(_ method: HTTPRequest.Method, _ headers: HTTPFields) -> Bool {
        method == .options && headers[.accessControlRequestMethod] != nil
    }

    /// The fields an answer to an allowed origin carries.
    static func stamp(origin: String, on headers: inout HTTPFields) {
        headers[.accessControlAllowOrigin] = origin
        headers[.accessControlExposeHeaders] = exposedHeaders
        headers[.vary] = "Origin"
    }

    func isAllowed(_ origin: String) -> Bool {
        allowedOrigins.contains { pattern in
            guard pattern.hasSuffix(":*") else { return pattern == origin }
            let host = pattern.dropLast(2)
            guard origin.hasPrefix(host + ":") else { return origin == host }
            return !origin.dropFirst(host.count + 1).isEmpty && origin.dropFirst(host.count + 1).allSatisfy(\.isNumber)
        }
    }
}
