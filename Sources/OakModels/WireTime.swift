import Foundation

/// Timestamps on the wire: RFC 3339 UTC, emitted with whole seconds, accepted with or without fractions.
/// The common layouts are parsed and written by hand (they are on every note, pull and export row);
/// anything unusual falls back to Foundation's ISO 8601 parser.
public enum WireTime {
    private static let wholeSeconds = Date.ISO8601FormatStyle(timeZone: .gmt)
    private static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    /// `2025-01-10T14:20:00Z`, as the API emits.
    public static func format(_ date: Date) -> String {
        let (seconds, _) = split(date)
        return String(decoding: civilBytes(seconds) + [UInt8(ascii: "Z")], as: UTF8.self)
    }

    /// `2025-01-10T14:20:00.123Z`, as the database stores (millisecond precision for last-write-wins).
    public static func formatPrecise(_ date: Date) -> String {
        var bytes: [UInt8] = []
        appendPrecise(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `formatPrecise(date)`'s UTF-8 to `bytes` (for writers that build bytes, like log lines).
    public static func appendPrecise(_ date: Date, to bytes: inout [UInt8]) {
        let (seconds, milliseconds) = split(date)
        bytes.append(contentsOf: civilBytes(seconds))
        bytes.append(UInt8(ascii: "."))
        appendDigits(milliseconds, width: 3, to: &bytes)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// `2025-01-10 14:20:00.123` (UTC, milliseconds): the layout of SQLite's date functions, in which GRDB
    /// stores a `Date`, written without a `DateFormatter`.
    public static func formatSQL(_ date: Date) -> String {
        let (seconds, milliseconds) = split(date)
        var bytes = civilBytes(seconds)
        bytes[10] = UInt8(ascii: " ")
        bytes.append(UInt8(ascii: "."))
        appendDigits(milliseconds, width: 3, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses an RFC 3339 timestamp with or without fractional seconds.
    public static func parse(_ text: String) -> Date? {
        fastParse(text) ?? (try? fractional.parse(text)) ?? (try? wholeSeconds.parse(text))
    }

    /// A date truncated to the millisecond, the precision the database keeps.
    public static func milliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: Double(wholeMilliseconds(date)) / 1000)
    }

    /// Milliseconds since 1970, rounded down, tolerant of the binary error of a value that is a whole
    /// number of milliseconds (so parsing and formatting round-trip exactly).
    private static func wholeMilliseconds(_ date: Date) -> Int64 {
        let milliseconds = date.timeIntervalSince1970 * 1000
        let nearest = milliseconds.rounded()
        return Int64(abs(milliseconds - nearest) < 0.05 ? nearest : milliseconds.rounded(.down))
    }

    // MARK: By hand

    /// Whole seconds since 1970 and the milliseconds past them (rounded down).
    private static func split(_ date: Date) -> (Int64, Int) {
        let totalMilliseconds = wholeMilliseconds(date)
        let seconds = totalMilliseconds >= 0 ? totalMilliseconds / 1000 : (totalMilliseconds - 999) / 1000
        return (seconds, Int(totalMilliseconds - seconds * 1000))
    }

    /// `YYYY-MM-DDTHH:MM:SS` for seconds since 1970 (days-to-civil, proleptic Gregorian).
    private static func civilBytes(_ seconds: Int64) -> [UInt8] {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        let month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        let year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendDigits(year, width: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(month, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(day, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(secondOfDay / 3600, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay / 60 % 60, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 60, width: 2, to: &bytes)
        return bytes
    }

    private static func appendDigits(_ value: Int, width: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS[.f…]Z` (years 0001–9999); nil for any other layout.
    private static func fastParse(_ text: String) -> Date? {
        var utf8 = text.utf8.makeIterator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(30)
        while let byte = utf8.next() {
            bytes.append(byte)
            if bytes.count > 40 { return nil }
        }
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), year >= 1, (1...12).contains(month), (1...31).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        // Fractions are kept to the millisecond (the database's precision), rounded down.
        var milliseconds = 0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), bytes.count > 21 else { return nil }
            for (position, index) in (20..<(bytes.count - 1)).enumerated() {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                if position < 3 { milliseconds += digit * [100, 10, 1][position] }
            }
        } else if bytes.count != 20 {
            return nil
        }
        // Days from civil (proleptic Gregorian).
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = Int64(days * 86_400 + hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: Double(seconds * 1000 + Int64(milliseconds)) / 1000)
    }
}
