import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOHTTP1
import OakModels
import Synchronization

/// Answers every error with the `{"error": {...}}` envelope: client mistakes with their status, an
/// unknown path with 404, a known path with the wrong method with 405 (and `Allow`), anything
/// unexpected with a logged 500. `FinishingMiddleware` asks it for the answer to any error the chain throws.
struct ErrorResponses: Sendable {
    let routes: RouteIndex

    /// The envelope response for an error the chain threw answering `request`; a 404 of the router (no route
    /// matched) is a 405 when the path has routes for other methods.
    func response(to error: any Error, request: Request, context: OakRequestContext) -> Response {
        guard let error = error as? any HTTPResponseError, error.status == .notFound, context.endpointPath == "NotFound" else {
            return Self.response(for: error, request: request, context: context)
        }
        let allowed = routes.methods(for: request.uri.path)
        guard !allowed.isEmpty else {
            return Self.response(for: OakError(.notFound, "No route for \(request.method) \(request.uri.path)"))
        }
        var response = Self.response(
            for: OakError(.methodNotAllowed, "\(request.method) is not allowed on \(request.uri.path); use \(allowed.joined(separator: ", "))"))
        response.headers[.allow] = allowed.joined(separator: ", ")
        return response
    }

    /// The envelope response for any error.
    static func response(for error: any Error, request: Request, context: OakRequestContext) -> Response {
        switch error {
        case let error as OakError:
            return response(for: error)
        case let error as any HTTPResponseError:
            let code: ErrorCode =
                switch error.status.code {
                case 404: .notFound
                case 405: .methodNotAllowed
                case 413: .payloadTooLarge
                case 415: .unsupportedMediaType
                case 429: .rateLimited
                case 400..<500: .validationError
                default: .internalError
                }
            var response = response(for: OakError(code, error.status.reasonPhrase))
            response.status = error.status
            return response
        case let error as HTTPParserError:
            // The request's bytes broke off or were not HTTP (a client gone mid-body, or refused while the
            // server stops): the client's doing, and nothing was applied.
            context.logger.notice("Request not read to its end", metadata: ["error": "\(error)"])
            return response(for: OakError(.validationError, "The request could not be read: \(error.debugDescription)"))
        default:
            context.logger.error("Unhandled error", metadata: ["error": "\(String(reflecting: error))"])
            return response(for: OakError(.internalError, "An internal error occurred"))
        }
    }

    /// The envelope response for an error. A 503 (the database away, busy or restarting) says when to try
    /// again: `Retry-After`, in seconds.
    static func response(for error: OakError) -> Response {
        let body = (try? WireJSON.encoder.encode(ErrorEnvelope(error: error))) ?? Data()
        var response = Response.json(ByteBuffer(bytes: body), status: .init(code: error.code.httpStatus))
        if error.code == .serviceUnavailable { response.headers[.retryAfter] = Self.retryAfterSeconds }
        return response
    }

    /// How long a client waits before it sends a request answered 503 again.
    static let retryAfterSeconds = "2"
}

/// The registered routes, to tell a wrong method (405) from an unknown path (404). The middleware that asks is
/// added to the router before the routes are, so the index learns them once the router holds them all (`learn`),
/// before the first request.
final class RouteIndex: Sendable {
    private let routes = Mutex<[(method: String, segments: [Substring])]>([])

    func learn(_ routes: [(method: String, path: String)]) {
        self.routes.withLock { $0 = routes.map { ($0.method, $0.path.split(separator: "/")) } }
    }

    /// The methods of the route that serves `path`, sorted. Where patterns overlap (`species/search` and
    /// `species/{name}`), the router takes the one with a literal segment earliest, and so does this.
    func methods(for path: String) -> [String] {
        let segments = path.split(separator: "/")
        let routes = self.routes.withLock { $0 }
        let matching = routes.filter { route in
            route.segments.count == segments.count
                && zip(route.segments, segments).allSatisfy { pattern, segment in Self.isParameter(pattern) || pattern == segment }
        }
        guard let best = matching.map(\.segments).min(by: { Self.isMoreSpecific($0, than: $1) }) else { return [] }
        return Set(matching.filter { $0.segments == best }.map(\.method)).sorted()
    }

    private static func isParameter(_ segment: Substring) -> Bool {
        segment.hasPrefix(":") || segment.hasPrefix("{") || segment == "*"
    }

    /// Whether a pattern has a literal segment where the other first has a parameter.
    private static func isMoreSpecific(_ left: [Substring], than right: [Substring]) -> Bool {
        for (a, b) in zip(left, right) where isParameter(a) != isParameter(b) {
            return !isParameter(a)
        }
        return false
    }
}
