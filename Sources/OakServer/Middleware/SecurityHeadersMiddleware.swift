import HTTPTypes
import Hummingbird

/// Security headers on every response; `Cache-Control: no-store` unless a route chose its own (the export).
struct SecurityHeadersMiddleware: RouterMiddleware {
    func handle(_ request: Request, context: OakRequestContext, next: (Request, OakRequestContext) async throws -> Response)
        async throws -> Response
    {
        var response = try await next(request, context)
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.init("X-Frame-Options")!] = "DENY"
        response.headers[.contentSecurityPolicy] = "default-src 'none'"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}
