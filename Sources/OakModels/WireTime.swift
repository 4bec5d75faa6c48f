import Foundation

/// Timestamps on the wire: RFC 3339 UTC, emitted with whole seconds, accepted with or without fractions.
public enum WireTime {
    private static let wholeSeconds = Date.ISO8601FormatStyle(timeZone: .gmt)
    private static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    /// `2025-01-10T14:20:00Z`, as the API emits.
    public static func format(_ date: Date) -> String {
        wholeSeconds.format(date)
    }

    /// `2025-01-10T14:20:00.123Z`, as the database stores (millisecond precision for last-write-wins).
    public static func formatPrecise(_ date: Date) -> String {
        fractional.format(date)
    }

    /// Parses an RFC 3339 timestamp with or without fractional seconds.
    public static func parse(_ text: String) -> Date? {
        (try? fractional.parse(text)) ?? (try? wholeSeconds.parse(text))
    }

    /// A date truncated to the millisecond, the precision the database keeps.
    public static func milliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }
}
