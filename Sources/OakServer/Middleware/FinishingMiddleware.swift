import HTTPTypes
import Hummingbird
import Logging

/// The chain's outermost middleware: the response finisher (`ResponseFinisher`) around everything else, so a routed
/// answer gets the same fields, log line, metrics and rate limit as one made before routing (`CachedReads`). It
/// answers a CORS preflight and a request the rate limit refuses itself; any other goes on to the chain, and an error
/// the chain throws is answered with the envelope (`ErrorResponses`).
struct FinishingMiddleware: RouterMiddleware {
    let finisher: ResponseFinisher
    let errors: ErrorResponses

    func handle(_ request: Request, context: OakRequestContext, next: (Request, OakRequestContext) async throws -> Response)
        async throws -> Response
    {
        var facts = finisher.facts(request.method, path: request.uri.path, headers: request.headers, socketAddress: context.socketAddress)
        var context = context
        context.requestID = facts.requestID
        context.clientIP = facts.clientIP
        context.logger = finisher.logger(context.logger, for: facts)
        context.logger[metadataKey: LineLogHandler.hummingbirdRequestIDKey] = nil  // Hummingbird's own id; ours replaces it
        var response: Response
        if let preflight = finisher.preflight(&facts, headers: request.headers) {
            response = preflight
        } else if let (kind, decision) = finisher.admit(&facts) {
            response = RateLimit.refusal(kind: kind, decision)
        } else {
            do {
                response = try await next(request, context)
            } catch {
                // An error took its token like any answer: it carries the rate limit's fields too.
                response = errors.response(to: error, request: request, context: context)
            }
        }
        finisher.finish(facts, status: response.status.code, headers: &response.headers, route: context.endpointPath ?? "NotFound", logger: context.logger)
        return response
    }
}
