import Foundation
import OakModels

/// Why a client call failed.
public enum OakClientError: Error, Sendable {
    /// The server answered with an error status; `error` is its envelope (or one made from the status
    /// when the body held none) and `retryAfter` its `Retry-After` header.
    case server(status: Int, error: OakError, retryAfter: Duration?)
    /// No response arrived: the connection failed, timed out or was cut.
    case transport(any Error)
    /// A success response whose body could not be decoded.
    case invalidResponse(status: Int, underlying: any Error)

    /// The HTTP status, when the server answered.
    public var status: Int? {
        switch self {
        case .server(let status, _, _), .invalidResponse(let status, _): status
        case .transport: nil
        }
    }

    /// The server's error envelope, when it answered with one.
    public var serverError: OakError? {
        if case .server(_, let error, _) = self { return error }
        return nil
    }

    /// How long the server asked the client to wait before trying again.
    public var retryAfter: Duration? {
        if case .server(_, _, let retryAfter) = self { return retryAfter }
        return nil
    }

    /// Whether trying again later may succeed: network failures, timeouts, 429 and 5xx.
    public var isTransient: Bool {
        switch self {
        case .transport: true
        case .server(let status, _, _): status == 408 || status == 429 || status >= 500
        case .invalidResponse: false
        }
    }
}

/// Parses a `Retry-After` header: delay seconds or an HTTP date.
enum RetryAfter {
    static func parse(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return .seconds(max(0, seconds)) }
        let httpDate = DateFormatter()
        httpDate.locale = Locale(identifier: "en_US_POSIX")
        httpDate.timeZone = TimeZone(identifier: "GMT")
        httpDate.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = httpDate.date(from: value) else { return nil }
        return .milliseconds(max(0, Int((date.timeIntervalSince(now) * 1000).rounded())))
    }
}
