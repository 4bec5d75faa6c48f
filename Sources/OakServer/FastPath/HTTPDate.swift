import Foundation
import Synchronization

/// The `Date` field's value (RFC 9110's IMF-fixdate, as Hummingbird writes it), made once a second.
final class HTTPDate: Sendable {
    static let shared = HTTPDate()
    private let current = Mutex<(second: Int, text: String)>((-1, ""))
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    var now: String {
        let second = Int(Date().timeIntervalSince1970)
        return current.withLock { cached in
            if cached.second != second { cached = (second, Self.format(second)) }
            return cached.text
        }
    }

    static func format(_ second: Int) -> String {
        var time = time_t(second)
        var parts = tm()
        gmtime_r(&time, &parts)
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[Int(parts.tm_wday)]), \(twoDigits(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec)) GMT"
    }
}
