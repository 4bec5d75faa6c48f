import HTTPTypes
import Hummingbird
import Logging

/// What every answer gets on its way out, whichever path made it: the middleware chain's (`FinishingMiddleware`,
/// the chain's outermost) or the fast path's (`CachedReads`). Each of these is written here once, so a header, a log
/// field or a metric added here is added to both paths.
///
/// Before the answer (`facts`, `preflight`, `admit`): the request's id (the client's `X-Request-ID` when sane), its
/// client's IP address, its CORS origin when allowed, a preflight's answer, and a token from its client's bucket of
/// the rate limit. After the answer (`finish`), in this order: the rate limit's `X-RateLimit-*` fields, the CORS
/// fields, the security fields, `X-Request-ID`; then the request's log line and its metrics.
struct ResponseFinisher: Sendable {
    let requestLog: RequestLog
    /// Nil when rate limiting is off.
    let rateLimit: RateLimit?
    let cors: CORSPolicy

    var metrics: ServerMetrics { requestLog.metrics }

    /// What the finisher knows of a request before it is answered.
    struct RequestFacts: Sendable {
        let method: HTTPRequest.Method
        /// The path, before the query, as sent.
        let path: String
        let requestID: String
        let clientIP: String
        /// When the request arrived, for its duration.
        let start: ContinuousClock.Instant
        /// The request's `Origin` when it is allowed: its answer carries the CORS fields.
        var corsOrigin: String?
        /// The rate limit's decision (`admit`), stamped on the answer; nil when the path is not limited or the limit
        /// is off.
        var rateDecision: RateLimiter.Decision?
    }

    /// A request's facts, from its head and its socket's address.
    func facts(
        _ method: HTTPRequest.Method, path: String, headers: HTTPFields, socketAddress: String?, since start: ContinuousClock.Instant = .now
    ) -> RequestFacts {
        RequestFacts(
            method: method, path: path, requestID: RequestLog.requestID(headers),
            clientIP: requestLog.clientIP(headers, socketAddress: socketAddress), start: start, corsOrigin: cors.allowedOrigin(headers))
    }

    /// `logger` with the request's id, which the log line and every other line about the request carry.
    func logger(_ logger: Logger, for facts: RequestFacts) -> Logger {
        var logger = logger
        logger[metadataKey: LineLogHandler.requestIDKey] = .string(facts.requestID)
        return logger
    }

    /// The answer to a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin, given
    /// before the rate limit is asked; nil for any other request. The answer's CORS fields are its own: `finish` adds
    /// none to it.
    func preflight(_ facts: inout RequestFacts, headers: HTTPFields) -> Response? {
        guard let origin = facts.corsOrigin, CORSPolicy.isPreflight(facts.method, headers) else { return nil }
        facts.corsOrigin = nil
        return Response(status: .noContent, headers: CORSPolicy.preflightFields(origin: origin))
    }

    /// Takes a token for the request from its client's bucket; the refusal when there is none (a refused request
    /// takes no token). The decision, either way, is stamped on the answer by `finish`.
    func admit(_ facts: inout RequestFacts) -> (kind: String, decision: RateLimiter.Decision)? {
        guard let rateLimit, let (kind, decision) = rateLimit.take(facts.method, facts.path, clientIP: facts.clientIP) else { return nil }
        facts.rateDecision = decision
        return decision.allowed ? nil : (kind, decision)
    }

    /// Finishes an answer (its `status` and `headers`, from `route`): adds the common fields in their order, logs
    /// the request's line with `logger` (see `logger(_:for:)`) and records its metrics.
    func finish(_ facts: RequestFacts, status: Int, headers: inout HTTPFields, route: String, logger: Logger) {
        if let decision = facts.rateDecision { RateLimit.stamp(decision, on: &headers) }
        if let origin = facts.corsOrigin { CORSPolicy.stamp(origin: origin, on: &headers) }
        SecurityHeaders.secure(&headers)
        // Only the finisher sets the id: appended, with no search for one to replace.
        headers.append(HTTPField(name: .requestID, value: facts.requestID))
        requestLog.finish(
            facts.method, path: facts.path, route: route, status: status, since: facts.start, clientIP: facts.clientIP, logger: logger)
    }
}
