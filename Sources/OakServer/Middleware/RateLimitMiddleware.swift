import HTTPTypes
import Hummingbird
import OakModels

/// Rate limits per client IP: reads, writes and backups each have a bucket; health checks and
/// metrics are exempt. Limited responses carry `X-RateLimit-*`; a refusal is a 429 with `Retry-After`.
struct RateLimitMiddleware: RouterMiddleware {
    let limiter: RateLimiter
    let limits: RateLimits

    func handle(_ request: Request, context: OakRequestContext, next: (Request, OakRequestContext) async throws -> Response)
        async throws -> Response
    {
        let path = request.uri.path
        if path.hasPrefix("/health") || path.hasPrefix("/api/v1/health") || path == "/metrics" {
            return try await next(request, context)
        }
        let (kind, policy): (String, RateLimiter.Policy) =
            if path == "/api/v1/backup" && request.method == .post {
                ("backup", .perMinute(limits.backupsPerMinute))
            } else if [.get, .head, .options].contains(request.method) {
                ("read", .perSecond(limits.readsPerSecond))
            } else {
                ("write", .perSecond(limits.writesPerSecond))
            }
        let decision = limiter.take("\(kind) \(context.clientIP)", policy: policy)
        var response: Response
        if decision.allowed {
            response = try await next(request, context)
        } else {
            response = ErrorMiddleware.response(
                for: OakError(.rateLimited, "Too many \(kind) requests; retry in \(decision.retryAfterSeconds) s",
                              details: ["retry_after": .number(Double(decision.retryAfterSeconds))]))
            response.headers[.retryAfter] = String(decision.retryAfterSeconds)
        }
        response.headers[.rateLimitLimit] = String(decision.limit)
        response.headers[.rateLimitRemaining] = String(decision.remaining)
        response.headers[.rateLimitReset] = String(decision.resetSeconds)
        return response
    }
}
