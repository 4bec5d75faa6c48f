import Foundation
import HTTPTypes
import Hummingbird
import OakModels

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Rate limits per client IP: reads, writes and backups each have a bucket; health checks, metrics and the
/// pages' own stylesheet, script and icon (three requests with every first page a browser loads) are exempt. Limited
/// responses carry `X-RateLimit-*`; a refusal is a 429 with `Retry-After`. The response finisher (`ResponseFinisher`)
/// asks it before a request is answered and stamps its decision on the answer.
struct RateLimit: Sendable {
    let limiter: RateLimiter
    let limits: RateLimits

    /// The answer to a refused request: the envelope's 429, with `Retry-After`.
    static func refusal(kind: String, _ decision: RateLimiter.Decision) -> Response {
        var response = ErrorResponses.response(
            for: OakError(
                .rateLimited, "Too many \(kind) requests; retry in \(decision.retryAfterSeconds) s",
                details: ["retry_after": .number(Double(decision.retryAfterSeconds))]))
        response.headers[.retryAfter] = String(decision.retryAfterSeconds)
        return response
    }

    /// The folder of the pages' files (`APIRoute.assets`), which are not limited.
    private static let assetFolders = APIRoute.folders(of: APIRoute.assets)

    /// Takes a token for a request from its client's bucket of its kind (`read`, `write` or `backup`); nil
    /// for the paths that are not limited (health checks, metrics, the pages' files).
    func take(_ method: HTTPRequest.Method, _ path: String, clientIP: String) -> (kind: String, decision: RateLimiter.Decision)? {
        if path.hasPrefix(APIRoute.health.path) || path.hasPrefix(APIRoute.apiHealth.path) || path == APIRoute.metrics.path
            || Self.assetFolders.contains(where: { path.hasPrefix($0) })
        {
            return nil
        }
        let (kind, policy): (String, RateLimiter.Policy) =
            if path == APIRoute.backup.path && method == .post {
                ("backup", .perMinute(limits.backupsPerMinute))
            } else if [.get, .head, .options].contains(method) {
                ("read", .perSecond(limits.readsPerSecond))
            } else {
                ("write", .perSecond(limits.writesPerSecond))
            }
        return (kind, limiter.take("\(kind) \(Self.bucket(of: clientIP))", policy: policy))
    }

    /// The `X-RateLimit-*` fields of a decision.
    static func stamp(_ decision: RateLimiter.Decision, on headers: inout HTTPFields) {
        headers[.rateLimitLimit] = String(decision.limit)
        headers[.rateLimitRemaining] = String(decision.remaining)
        // As the original documents it: the Unix time (in seconds) at which the bucket is full again.
        headers[.rateLimitReset] = String(Int(Date().timeIntervalSince1970.rounded(.up)) + decision.resetSeconds)
    }

    /// Whose bucket a client IP uses: an IPv6 client shares one with its /64 network (one subscriber gets a
    /// whole /64, so it could otherwise take a new address for every request); an IPv4 address, or IPv4 mapped
    /// into IPv6, has its own; anything else (an unparsable proxy header) is used as it is.
    static func bucket(of ip: String) -> String {
        var address = in6_addr()
        guard ip.contains(":"), inet_pton(AF_INET6, ip, &address) == 1 else { return ip }
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return bytes[12...].map(String.init).joined(separator: ".")
        }
        return stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":") + "::/64"
    }
}
