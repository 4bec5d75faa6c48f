import Foundation
import HTTPTypes
import Hummingbird
import Logging
import OakModels

/// Gives every request an id (the client's `X-Request-ID` when sane), logs one structured line per
/// request (method, path, status, duration, id; never credentials) and records metrics. The response finisher
/// (`ResponseFinisher`) calls it for every answer, routed or made before routing.
struct RequestLog: Sendable {
    let metrics: ServerMetrics
    /// Take the client IP from a proxy's header.
    let trustProxy: Bool
    private static let ids = RequestIDs()

    /// A request's id: the client's `X-Request-ID` when sane, else a new one.
    static func requestID(_ headers: HTTPFields) -> String {
        sanitizedID(headers[.requestID]) ?? ids.next()
    }

    /// Records an answered request's metrics and logs its line (at `info`, with `logger`'s request id).
    func finish(
        _ method: HTTPRequest.Method, path: String, route: String, status: Int, since start: ContinuousClock.Instant, clientIP: String,
        logger: Logger
    ) {
        let duration = ContinuousClock.now - start
        metrics.record(method: method.rawValue, route: route, status: status, duration: duration)
        guard logger.logLevel <= .info else { return }
        let fields: [(key: String, value: Logger.MetadataValue)] = [
            ("client", .string(clientIP)), ("duration_ms", .string(Self.milliseconds(duration))), ("method", .string(method.rawValue)),
            ("path", .string(path)), ("status", .string(String(status))),
        ]
        if let lines = logger.handler as? LineLogHandler {
            lines.log(level: .info, "request", fields: fields)
        } else {
            logger.info("request", metadata: Logger.Metadata(uniqueKeysWithValues: fields))
        }
    }

    /// The socket's address, or behind a trusted proxy `Fly-Client-IP` or the first `X-Forwarded-For` entry.
    func clientIP(_ headers: HTTPFields, socketAddress: String?) -> String {
        if trustProxy {
            if let fly = headers[.flyClientIP].map({ String($0.trimmingWhitespace) }), !fly.isEmpty { return fly }
            if let first = headers[.forwardedFor]?.split(separator: ",").first.map({ String($0.trimmingWhitespace) }), !first.isEmpty {
                return first
            }
        }
        return socketAddress ?? "unknown"
    }

    /// A duration as milliseconds with two decimals (String(format:) is slow on Linux, and this runs per request).
    static func milliseconds(_ duration: Duration) -> String {
        let hundredths = duration.components.seconds * 100_000 + duration.components.attoseconds / 10_000_000_000_000
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// A client-sent id is kept when it is 1–128 characters of letters, digits, `-`, `_`, `.`.
    static func sanitizedID(_ value: String?) -> String? {
        guard let value, (1...128).contains(value.count),
            value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
        else { return nil }
        return value
    }
}

extension HTTPField.Name {
    static let requestID = HTTPField.Name("X-Request-ID")!
    static let apiKey = HTTPField.Name("X-API-Key")!
    static let rateLimitLimit = HTTPField.Name("X-RateLimit-Limit")!
    static let rateLimitRemaining = HTTPField.Name("X-RateLimit-Remaining")!
    static let rateLimitReset = HTTPField.Name("X-RateLimit-Reset")!
    static let flyClientIP = HTTPField.Name("Fly-Client-IP")!
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
}
