import Foundation
import OakModels

/// Conversions between the database's text columns and the models.
package enum ColumnCoding {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    /// A list column as strings. Existing files hold these as JSON arrays, as the JSON text `null`, as empty
    /// text and as plain comma-separated text: `null` and blank read as `[]`, comma text as its items, and
    /// null or empty items of an array are left out.
    package static func strings(_ text: String?) -> [String] {
        // Most list columns are empty: skip the JSON decoder for them.
        guard let text, !isEmptyList(text) else { return [] }
        if let list = plainStringArray(text) { return list.filter { !$0.isEmpty } }
        if let data = text.data(using: .utf8), let list = try? JSONDecoder().decode([String?].self, from: data) {
            return list.compactMap { $0 }.filter { !$0.isEmpty }
        }
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The items of a JSON array of strings that have no escapes (`["a", "b"]`: nearly every list a file
    /// holds), found by `plainStringRanges` without the JSON decoder, which would be most of the time of reading
    /// many rows' lists (see BENCHMARKS.md, "Where the targets stand", item 6); nil for anything else (escapes,
    /// `null` items, other values, other text).
    package static func plainStringArray(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { bytes in
            plainStringRanges(bytes)?.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
        }
    }

    /// A JSON-array text column of free-form values; `null`, blank or anything but an array reads as `[]`.
    package static func values(_ text: String?) -> [JSONValue] {
        guard let text, !isEmptyList(text), let data = text.data(using: .utf8),
            let list = try? JSONDecoder().decode([JSONValue].self, from: data)
        else { return [] }
        return list
    }

    /// Whether list text means an empty list: `[]`, the JSON text `null`, or blank.
    package static func isEmptyList(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isEmptyList($0) }
    }

    /// JSON text for an array column.
    package static func json<T: Encodable>(_ value: [T]) -> String {
        (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "[]"
    }

    /// JSON text for a list of strings (a list column, a query's list parameter), written by hand: the same
    /// text as the encoder's, without its cost, which a push would pay once per note for its receipts and lists
    /// (see BENCHMARKS.md, "Server round 2", item 15).
    package static func json(_ strings: [String]) -> String {
        var output = JSONOutput(capacity: 16 + strings.count * 48)
        output.strings(strings)
        return output.withBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// JSON text for a list of lists of strings (a push's `[id, digest]` pairs, its `[species, source]` slots).
    package static func json(_ lists: [[String]]) -> String {
        var output = JSONOutput(capacity: 16 + lists.count * 1024)
        output.raw("[")
        for (index, list) in lists.enumerated() {
            if index > 0 { output.raw(",") }
            output.strings(list)
        }
        output.raw("]")
        return output.withBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// A stored timestamp; rows written by older tools may lack one.
    package static func date(_ text: String?) -> Date {
        text.flatMap(WireTime.parse) ?? Date(timeIntervalSince1970: 0)
    }

    /// A column name from a Swift case name: `closelyRelatedTo` is `closely_related_to`.
    package static func snakeCase(_ name: String) -> String {
        name.map { $0.isUppercase ? "_\($0.lowercased())" : "\($0)" }.joined()
    }

    // Byte-level readers for the hand-written JSON of the export and sync pages (`JSONOutput`). Each
    // recognizes the common stored form and returns nil for anything else, which then takes the paths above.

    /// Whether list text means an empty list: `[]`, the JSON text `null`, or blank.
    package static func isEmptyList(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let first = text.firstIndex(where: { !blank($0) }) else { return true }
        let last = text.lastIndex(where: { !blank($0) })!
        let trimmed = UnsafeBufferPointer(rebasing: text[first...last])
        return trimmed.elementsEqual("[]".utf8) || trimmed.elementsEqual("null".utf8)
    }

    /// Where the strings of a JSON array of strings without escape sequences are; nil for any other text.
    package static func plainStringRanges(_ text: UnsafeBufferPointer<UInt8>) -> [Range<Int>]? {
        let quote = UInt8(ascii: "\"")
        let backslash = UInt8(ascii: "\\")
        var index = 0
        func skipSpace() {
            while index < text.count, text[index] == 0x20 || text[index] == 0x09 || text[index] == 0x0A || text[index] == 0x0D {
                index += 1
            }
        }
        func take(_ byte: UInt8) -> Bool {
            guard index < text.count, text[index] == byte else { return false }
            index += 1
            skipSpace()
            return true
        }
        skipSpace()
        guard take(UInt8(ascii: "[")) else { return nil }
        var ranges: [Range<Int>] = []
        if !take(UInt8(ascii: "]")) {
            repeat {
                guard index < text.count, text[index] == quote else { return nil }
                let start = index + 1
                index = start
                while index < text.count, text[index] != quote {
                    guard text[index] >= 0x20, text[index] != backslash else { return nil }
                    index += 1
                }
                guard index < text.count else { return nil }
                ranges.append(start..<index)
                index += 1
                skipSpace()
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "]")) else { return nil }
        }
        return index == text.count ? ranges : nil
    }

    /// The length of the whole-second part (`2025-01-10T14:20:00`) of a timestamp stored as
    /// `2025-01-10T14:20:00.123Z` or `2025-01-10T14:20:00Z`; nil for any other text.
    package static func wholeSecondsPrefix(of text: UnsafeBufferPointer<UInt8>) -> Int? {
        guard text.count == 20 || (text.count == 24 && text[19] == UInt8(ascii: ".")), text.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>, _ limits: ClosedRange<Int>) -> Bool {
            var value = 0
            for index in range {
                guard (0x30...0x39).contains(text[index]) else { return false }
                value = value * 10 + Int(text[index] - 0x30)
            }
            return limits.contains(value)
        }
        guard text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"), text[10] == UInt8(ascii: "T"),
            text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"), number(0..<4, 1...9999), number(5..<7, 1...12), number(8..<10, 1...31),
            number(11..<13, 0...23),
            number(14..<16, 0...59), number(17..<19, 0...59), text.count == 20 || number(20..<23, 0...999)
        else { return nil }
        return 19
    }
}
