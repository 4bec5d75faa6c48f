import HTTPTypes
import Hummingbird

/// Cross-origin access for an allow-list of origins (`http://localhost:*` allows any port).
/// Other origins get no CORS headers. It runs outside rate limiting, so a 429 still carries them.
struct CORSMiddleware: RouterMiddleware {
    let allowedOrigins: [String]

    static let allowedMethods = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
    static let allowedHeaders = "Accept, Authorization, Content-Type, X-API-Key, X-Request-ID, If-Match, If-None-Match"
    static let exposedHeaders = "ETag, Retry-After, X-Request-ID, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset"

    func handle(_ request: Request, context: OakRequestContext, next: (Request, OakRequestContext) async throws -> Response)
        async throws -> Response
    {
        guard let origin = request.headers[.origin], isAllowed(origin) else {
            return try await next(request, context)
        }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            return Response(
                status: .noContent,
                headers: [
                    .accessControlAllowOrigin: origin, .vary: "Origin", .accessControlAllowMethods: Self.allowedMethods,
                    .accessControlAllowHeaders: Self.allowedHeaders, .accessControlMaxAge: "600",
                ])
        }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
        response.headers[.vary] = "Origin"
        return response
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
