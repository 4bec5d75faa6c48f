import Foundation
import OakModels

/// JSON written by hand, for the large documents (the export and sync pages): they are written straight
/// from the columns of the rows being read, without models or `JSONEncoder` in between. Strings are
/// escaped as `JSONEncoder` escapes them with `.withoutEscapingSlashes`. The bytes collect in an array
/// (appending to it is cheaper than to a `ByteBuffer`) and go to the response buffer in large pieces.
package struct JSONOutput {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// Literal JSON text (punctuation, keys).
    package mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Already-encoded JSON.
    package mutating func raw(_ json: Data) {
        bytes.append(contentsOf: json)
    }

    /// What another output holds.
    package mutating func append(_ other: JSONOutput) {
        bytes.append(contentsOf: other.bytes)
    }

    package mutating func clear() {
        bytes.removeAll(keepingCapacity: true)
    }

    package mutating func int(_ value: Int64) {
        bytes.append(contentsOf: String(value).utf8)
    }

    package mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    package mutating func null() {
        raw("null")
    }

    package mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { string(utf8: $0) }
    }

    /// A JSON string from UTF-8 bytes: quotes, backslashes and control characters escaped, the rest as is.
    package mutating func string(utf8 text: UnsafeBufferPointer<UInt8>) {
        raw(#"""#)
        stringContent(utf8: text)
        raw(#"""#)
    }

    /// The inside of a JSON string. Invalid UTF-8 (possible in files written by other tools) is written
    /// repaired, as Swift's `String` reads it.
    private mutating func stringContent(utf8 text: UnsafeBufferPointer<UInt8>) {
        let start = bytes.count
        var plainFrom = 0
        var allBits: UInt8 = 0
        for index in 0..<text.count {
            let byte = text[index]
            allBits |= byte
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[plainFrom..<index]))
            escape(byte)
            plainFrom = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[plainFrom...]))
        if allBits >= 0x80, String(validating: text, as: UTF8.self) == nil {
            bytes.removeSubrange(start...)
            var repaired = String(decoding: text, as: UTF8.self)
            repaired.withUTF8 { stringContent(utf8: $0) }
        }
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): raw(#"\""#)
        case UInt8(ascii: "\\"): raw(#"\\"#)
        case 0x08: raw(#"\b"#)
        case 0x09: raw(#"\t"#)
        case 0x0A: raw(#"\n"#)
        case 0x0C: raw(#"\f"#)
        case 0x0D: raw(#"\r"#)
        default:
            raw(#"\u00"#)
            bytes.append(contentsOf: [byte].hexString.utf8)
        }
    }

    /// An array of strings.
    package mutating func strings(_ list: [String]) {
        raw("[")
        for (index, item) in list.enumerated() {
            if index > 0 { raw(",") }
            string(item)
        }
        raw("]")
    }

    /// A value through `JSONEncoder` (sorted keys), for rare or small values.
    package mutating func encoded(_ value: some Encodable) throws {
        bytes.append(contentsOf: try WireJSON.encoder.encode(value))
    }
}

/// The columns of the row a backend's query is positioned on, read in place: what the hand-written JSON
/// of every backend is written from, so each wire shape is written once. Columns are numbered from 0.
package protocol ColumnReader {
    func isNull(_ index: Int32) -> Bool
    /// An integer column (booleans are integers: 0 is false); NULL reads as 0.
    func int(_ index: Int32) -> Int64
    /// The UTF-8 text of a column, nil for NULL.
    func withText<T>(_ index: Int32, _ body: (UnsafeBufferPointer<UInt8>?) throws -> T) rethrows -> T
}

extension ColumnReader {
    package func string(_ index: Int32) -> String? {
        withText(index) { $0.map { String(decoding: $0, as: UTF8.self) } }
    }
}

extension JSONOutput {
    /// A text column as a JSON string, or null.
    package mutating func text(_ columns: some ColumnReader, _ index: Int32) {
        columns.withText(index) { text in
            if let text { string(utf8: text) } else { null() }
        }
    }

    /// A UUID column, lowercased as the models write UUIDs.
    package mutating func uuid(_ columns: some ColumnReader, _ index: Int32) {
        columns.withText(index) { text in
            guard let text, text.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) }) else {
                return self.text(columns, index)
            }
            string(String(decoding: text, as: UTF8.self).lowercased())
        }
    }

    /// A boolean column (as the models read it: NULL is false).
    package mutating func bool(_ columns: some ColumnReader, _ index: Int32) {
        bool(columns.int(index) != 0)
    }

    /// A list column (JSON array text, or legacy comma-separated text) as an array of strings.
    package mutating func stringList(_ columns: some ColumnReader, _ index: Int32) {
        columns.withText(index) { text in
            guard let text, !ColumnCoding.isEmptyList(text) else { return raw("[]") }
            guard let ranges = ColumnCoding.plainStringRanges(text), !ranges.contains(where: \.isEmpty) else {
                return strings(ColumnCoding.strings(String(decoding: text, as: UTF8.self)))
            }
            raw("[")
            for (position, range) in ranges.enumerated() {
                if position > 0 { raw(",") }
                string(utf8: UnsafeBufferPointer(rebasing: text[range]))
            }
            raw("]")
        }
    }

    /// A list column as one string joined by ", " (a note's `commonNames`), or null when the list is empty.
    package mutating func joinedList(_ columns: some ColumnReader, _ index: Int32) {
        columns.withText(index) { text in
            guard let text, !ColumnCoding.isEmptyList(text) else { return null() }
            guard let ranges = ColumnCoding.plainStringRanges(text), !ranges.contains(where: \.isEmpty) else {
                let list = ColumnCoding.strings(String(decoding: text, as: UTF8.self))
                return list.isEmpty ? null() : string(list.joined(separator: ", "))
            }
            guard !ranges.isEmpty else { return null() }
            raw(#"""#)
            for (position, range) in ranges.enumerated() {
                if position > 0 { raw(", ") }
                stringContent(utf8: UnsafeBufferPointer(rebasing: text[range]))
            }
            raw(#"""#)
        }
    }

    /// A column of free-form JSON values (links) as an array.
    package mutating func valueList(_ columns: some ColumnReader, _ index: Int32) throws {
        try columns.withText(index) { text in
            guard let text, !ColumnCoding.isEmptyList(text) else { return raw("[]") }
            try encoded(ColumnCoding.values(String(decoding: text, as: UTF8.self)))
        }
    }

    /// A stored timestamp in the wire's whole-second form; the stored millisecond form is cut without parsing.
    package mutating func timestamp(_ columns: some ColumnReader, _ index: Int32) {
        columns.withText(index) { text in
            if let text, let seconds = ColumnCoding.wholeSecondsPrefix(of: text) {
                raw(#"""#)
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[..<seconds]))
                raw(#"Z""#)
            } else {
                string(WireTime.format(ColumnCoding.date(text.map { String(decoding: $0, as: UTF8.self) })))
            }
        }
    }
}

/// How a column's text becomes JSON.
package enum ColumnKind: Sendable {
    case text, integer, boolean, stringList, joinedList, valueList, timestamp, uuid
}

/// A member of a JSON object written from a column: its key, the column, and how its text becomes JSON.
package struct ColumnMember<Column: RawRepresentable & Sendable>: Sendable where Column.RawValue == Int32 {
    package typealias Kind = ColumnKind

    package let key: StaticString
    package let column: Column
    package let kind: Kind
    /// Whether a null value is written as `null`; otherwise (the rule of every response, see
    /// `KeyedEncodingContainer.encodeUnlessEmpty`) a null value or an empty list leaves the member out.
    package let keepsNull: Bool

    package init(_ key: StaticString, _ column: Column, _ kind: Kind = .text, keepsNull: Bool = false) {
        self.key = key
        self.column = column
        self.kind = kind
        self.keepsNull = keepsNull
    }
}

extension ColumnReader {
    /// Whether a column's value reads as null or as an empty list (only list columns' text is read).
    package func isEmptyValue(_ index: Int32, _ kind: ColumnKind) -> Bool {
        guard !isNull(index) else { return true }
        switch kind {
        case .stringList, .joinedList:
            return withText(index) { text in
                guard let text, !ColumnCoding.isEmptyList(text) else { return true }
                return ColumnCoding.plainStringRanges(text).map { $0.isEmpty }
                    ?? ColumnCoding.strings(String(decoding: text, as: UTF8.self)).isEmpty
            }
        case .valueList:
            return withText(index) { text in
                guard let text else { return true }
                return ColumnCoding.isEmptyList(text) || ColumnCoding.values(String(decoding: text, as: UTF8.self)).isEmpty
            }
        default:
            return false
        }
    }
}

extension JSONOutput {
    /// Writes `"key":value` members separated by commas (no braces), leaving out those that are null or
    /// empty lists (but for `keepsNull` ones). `after` says whether the object already has a member (the
    /// first one written then gets a comma); returns whether it has one now.
    @discardableResult
    package mutating func members<Column>(_ list: [ColumnMember<Column>], _ columns: some ColumnReader, after: Bool = false) throws -> Bool {
        var separated = after
        for member in list {
            let index = member.column.rawValue
            if !member.keepsNull, columns.isEmptyValue(index, member.kind) { continue }
            raw(separated ? #",""# : #"""#)
            separated = true
            raw(member.key)
            raw(#"":"#)
            switch member.kind {
            case .text: text(columns, index)
            case .integer: int(columns.int(index))
            case .boolean: bool(columns, index)
            case .stringList: stringList(columns, index)
            case .joinedList: joinedList(columns, index)
            case .valueList: try valueList(columns, index)
            case .timestamp: timestamp(columns, index)
            case .uuid: uuid(columns, index)
            }
        }
        return separated
    }
}
