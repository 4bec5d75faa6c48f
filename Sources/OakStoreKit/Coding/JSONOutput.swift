import Foundation
import NIOCore
import OakModels

/// JSON written by hand, for the large documents (the export and sync pages): they are written straight
/// from the columns of the rows being read, without models or `JSONEncoder` in between. Strings are
/// escaped as `JSONEncoder` escapes them with `.withoutEscapingSlashes`. The bytes collect in a response
/// buffer's memory, appended to with `memcpy` (an `Array`'s generic `append(contentsOf:)` and `ByteBuffer`'s own
/// writes cost more per call), and the buffer is handed over without a copy (`takeByteBuffer()`), so a sync
/// page (1 MB) is never copied into a new buffer the system has to map page by page (see BENCHMARKS.md,
/// "Server round 2", items 16 and 20).
///
/// What reads a backend's columns (`ColumnReader`) is public and `@inlinable`, so that each backend's calls
/// are specialized for its reader: Swift specializes generic code across modules only from public inlinable
/// bodies (not from `package` ones), and unspecialized, every column would go through a witness table and every
/// member list through runtime metadata look-ups (see BENCHMARKS.md, "Server round 2", item 15). The work on
/// the text itself is in
/// ordinary functions (`string(utf8:)`, `stringList(text:)`, ...).
public struct JSONOutput {
    /// Where the bytes are; `count` of its `capacity` are written. The struct keeps these (a class's stored
    /// properties are checked for exclusive access at run time on every write), `allocation` frees the memory.
    @usableFromInline var base: UnsafeMutableRawPointer
    @usableFromInline var count: Int = 0
    @usableFromInline var capacity: Int
    @usableFromInline var allocation: JSONAllocation

    /// The JSON written so far, copied.
    public var bytes: [UInt8] { withBytes { Array($0) } }

    @inlinable
    public init(capacity: Int) {
        self.capacity = max(capacity, 64)
        allocation = JSONAllocation(byteCount: self.capacity)
        base = allocation.base
    }

    /// Calls `body` with the JSON written so far, in place.
    public func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The JSON written, as a buffer to send; the output is left empty. The memory is handed over without a
    /// copy unless a copy of this output still shares it.
    public mutating func takeByteBuffer() -> ByteBuffer {
        var buffer: ByteBuffer
        if isKnownUniquelyReferenced(&allocation) {
            buffer = allocation.buffer
            buffer.moveWriterIndex(to: count)
        } else {
            buffer = withBytes { ByteBuffer(bytes: $0) }
        }
        self = JSONOutput(capacity: 0)
        return buffer
    }

    /// Appends bytes: the one way bytes are added. Memory shared with a copy of this output is copied first,
    /// so outputs stay values.
    @inlinable
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        if capacity - count < bytes.count || !isKnownUniquelyReferenced(&allocation) { reallocate(toFit: count + bytes.count) }
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    @inlinable
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(UnsafeRawBufferPointer(bytes))
    }

    /// Moves the bytes to memory of this output's own with room for `needed` bytes (doubling as it grows).
    @usableFromInline
    mutating func reallocate(toFit needed: Int) {
        if needed > capacity { capacity = max(needed, capacity * 2) }
        let grown = JSONAllocation(byteCount: capacity)
        grown.base.copyMemory(from: base, byteCount: count)
        allocation = grown
        base = grown.base
    }

    /// Literal JSON text (punctuation, keys).
    @inlinable
    public mutating func raw(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Already-encoded JSON.
    public mutating func raw(_ json: Data) {
        json.withUnsafeBytes { append($0) }
    }

    /// What another output holds.
    package mutating func append(_ other: JSONOutput) {
        other.withBytes { append($0) }
    }

    package mutating func clear() {
        if !isKnownUniquelyReferenced(&allocation) { reallocate(toFit: 0) }
        count = 0
    }

    public mutating func int(_ value: Int64) {
        var text = String(value)
        text.withUTF8 { append($0) }
    }

    @inlinable
    public mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    @inlinable
    public mutating func null() {
        raw("null")
    }

    public mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { string(utf8: $0) }
    }

    /// A JSON string from UTF-8 bytes: quotes, backslashes and control characters escaped, the rest as is.
    public mutating func string(utf8 text: UnsafeBufferPointer<UInt8>) {
        raw(#"""#)
        stringContent(utf8: text)
        raw(#"""#)
    }

    /// The inside of a JSON string. Invalid UTF-8 (possible in files written by other tools) is written
    /// repaired, as Swift's `String` reads it. The text is scanned eight bytes at a time: most of it (note text)
    /// has nothing to escape.
    private mutating func stringContent(utf8 text: UnsafeBufferPointer<UInt8>) {
        let start = count
        var plainFrom = 0
        var allBits: UInt64 = 0
        var index = 0
        func escapeFrom(_ offset: Int) {
            append(UnsafeBufferPointer(rebasing: text[plainFrom..<offset]))
            escape(text[offset])
            plainFrom = offset + 1
        }
        if let base = text.baseAddress {
            while index + 8 <= text.count {
                let word = UnsafeRawPointer(base).loadUnaligned(fromByteOffset: index, as: UInt64.self)
                allBits |= word
                if Self.needsEscape(word) {
                    for offset in index..<index + 8 where Self.needsEscape(text[offset]) { escapeFrom(offset) }
                }
                index += 8
            }
        }
        for offset in index..<text.count {
            allBits |= UInt64(text[offset])
            if Self.needsEscape(text[offset]) { escapeFrom(offset) }
        }
        append(UnsafeBufferPointer(rebasing: text[plainFrom...]))
        if allBits & 0x8080_8080_8080_8080 != 0, String(validating: text, as: UTF8.self) == nil {
            count = start
            var repaired = String(decoding: text, as: UTF8.self)
            repaired.withUTF8 { stringContent(utf8: $0) }
        }
    }

    /// Whether a byte is escaped in a JSON string: a control character, a quote or a backslash.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Whether any of the eight bytes of a word is escaped (the bit tricks "has a byte less than n" and "has a
    /// zero byte", exact as a yes or no).
    private static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highBits != 0 }
        let hasControl = (word &- ones &* 0x20) & ~word & highBits != 0
        return hasControl || hasZeroByte(word ^ (ones &* UInt64(UInt8(ascii: "\""))))
            || hasZeroByte(word ^ (ones &* UInt64(UInt8(ascii: "\\"))))
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
            var hex = [byte].hexString
            hex.withUTF8 { append($0) }
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
        raw(try WireJSON.encoder.encode(value))
    }
}

/// The columns of the row a backend's query is positioned on, read in place: what the hand-written JSON
/// of every backend is written from, so each wire shape is written once. Columns are numbered from 0.
public protocol ColumnReader {
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

/// How a column's text becomes JSON.
public enum ColumnKind: Sendable {
    /// `timestamp`: whole seconds, as the REST routes answer; `preciseTimestamp`: to the millisecond, as the
    /// sync protocol carries the times last write wins compares; `json`: text stored as JSON, written as it is.
    case text, integer, boolean, stringList, joinedList, valueList, timestamp, preciseTimestamp, uuid, json

    /// Whether the column holds a list, which may be empty.
    @inlinable
    public var isList: Bool {
        switch self {
        case .stringList, .joinedList, .valueList: true
        default: false
        }
    }

    /// Whether a column's text (nil for NULL) is left out of an object: null, or a list that reads as empty.
    @inlinable
    public func isEmpty(_ text: UnsafeBufferPointer<UInt8>?) -> Bool {
        text == nil || (isList && isEmptyList(text))
    }

    /// Whether a list column's text (nil for NULL) reads as an empty list.
    public func isEmptyList(_ text: UnsafeBufferPointer<UInt8>?) -> Bool {
        guard let text, !ColumnCoding.isEmptyList(text) else { return true }
        if self == .valueList { return ColumnCoding.values(String(decoding: text, as: UTF8.self)).isEmpty }
        // Empty items are left out of a list (`ColumnCoding.strings`), so a list of only those is empty.
        return ColumnCoding.plainStringRanges(text).map { $0.allSatisfy(\.isEmpty) }
            ?? ColumnCoding.strings(String(decoding: text, as: UTF8.self)).isEmpty
    }
}

/// A member of a JSON object written from a column: its key, the column, and how its text becomes JSON.
public struct ColumnMember<Column: RawRepresentable & Sendable>: Sendable where Column.RawValue == Int32 {
    public typealias Kind = ColumnKind

    public let key: StaticString
    public let column: Column
    public let kind: Kind
    /// Whether a null value is written as `null`; otherwise (the rule of every response, see
    /// `KeyedEncodingContainer.encodeUnlessEmpty`) a null value or an empty list leaves the member out.
    public let keepsNull: Bool

    package init(_ key: StaticString, _ column: Column, _ kind: Kind = .text, keepsNull: Bool = false) {
        self.key = key
        self.column = column
        self.kind = kind
        self.keepsNull = keepsNull
    }
}

extension JSONOutput {
    /// Writes `"key":value` members separated by commas (no braces), leaving out those that are null or
    /// empty lists (but for `keepsNull` ones). `after` says whether the object already has a member (the
    /// first one written then gets a comma); returns whether it has one now.
    @inlinable @discardableResult
    public mutating func members<Column>(_ list: [ColumnMember<Column>], _ columns: some ColumnReader, after: Bool = false) throws -> Bool {
        var separated = after
        for member in list {
            let index = member.column.rawValue
            switch member.kind {
            case .integer, .boolean:
                if !member.keepsNull, columns.isNull(index) { continue }
                key(member.key, separated: &separated)
                let value = columns.int(index)
                if member.kind == .integer { int(value) } else { bool(value != 0) }
            default:
                // A text column is read once: whether it is left out, then its value.
                try columns.withText(index) { text in
                    if !member.keepsNull, member.kind.isEmpty(text) { return }
                    key(member.key, separated: &separated)
                    try value(text: text, member.kind)
                }
            }
        }
        return separated
    }

    /// A member's key: `"key":`, after a comma when the object has a member already.
    @inlinable
    mutating func key(_ key: StaticString, separated: inout Bool) {
        raw(separated ? #",""# : #"""#)
        separated = true
        raw(key)
        raw(#"":"#)
    }

    /// A column's text (nil for NULL) as JSON, as its kind says. Number kinds are read as numbers by
    /// `members`, not here; any other kind is plain text.
    public mutating func value(text: UnsafeBufferPointer<UInt8>?, _ kind: ColumnKind) throws {
        switch kind {
        case .stringList: stringList(text: text)
        case .joinedList: joinedList(text: text)
        case .valueList: try valueList(text: text)
        case .timestamp: timestamp(text: text)
        case .preciseTimestamp: preciseTimestamp(text: text)
        case .json: if let text { append(text) } else { null() }
        case .uuid: uuid(text: text)
        default: if let text { string(utf8: text) } else { null() }
        }
    }

    /// A UUID (nil for NULL), lowercased as the models write UUIDs.
    public mutating func uuid(text: UnsafeBufferPointer<UInt8>?) {
        guard let text else { return null() }
        guard text.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) }) else { return string(utf8: text) }
        string(String(decoding: text, as: UTF8.self).lowercased())
    }

    /// A list (JSON array text, or legacy comma-separated text; nil for NULL) as an array of strings.
    public mutating func stringList(text: UnsafeBufferPointer<UInt8>?) {
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

    /// A list as one string joined by ", " (a note's `commonNames`), or null when the list is empty.
    public mutating func joinedList(text: UnsafeBufferPointer<UInt8>?) {
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

    /// A list of free-form JSON values (links) as an array.
    public mutating func valueList(text: UnsafeBufferPointer<UInt8>?) throws {
        guard let text, !ColumnCoding.isEmptyList(text) else { return raw("[]") }
        try encoded(ColumnCoding.values(String(decoding: text, as: UTF8.self)))
    }

    /// A stored timestamp to the millisecond; the stored millisecond form is copied without parsing.
    public mutating func preciseTimestamp(text: UnsafeBufferPointer<UInt8>?) {
        if let text, text.count == 24, ColumnCoding.wholeSecondsPrefix(of: text) != nil {
            raw(#"""#)
            append(text)
            raw(#"""#)
        } else {
            string(WireTime.formatPrecise(ColumnCoding.date(text.map { String(decoding: $0, as: UTF8.self) })))
        }
    }

    /// A stored timestamp in the wire's whole-second form; the stored millisecond form is cut without parsing.
    public mutating func timestamp(text: UnsafeBufferPointer<UInt8>?) {
        if let text, let seconds = ColumnCoding.wholeSecondsPrefix(of: text) {
            raw(#"""#)
            append(UnsafeBufferPointer(rebasing: text[..<seconds]))
            raw(#"Z""#)
        } else {
            string(WireTime.format(ColumnCoding.date(text.map { String(decoding: $0, as: UTF8.self) })))
        }
    }
}

/// The memory of a `JSONOutput`: a buffer's, freed when neither an output nor the buffer handed over uses it.
@usableFromInline
final class JSONAllocation {
    /// Holds the memory; its indices stay at zero until `JSONOutput.takeByteBuffer()` hands it over.
    @usableFromInline let buffer: ByteBuffer
    /// The buffer's memory, written through directly. A buffer's memory stays where it is while nothing
    /// writes to the buffer itself, and nothing does: the outputs sharing this allocation write here.
    @usableFromInline let base: UnsafeMutableRawPointer

    @usableFromInline
    init(byteCount: Int) {
        var buffer = ByteBufferAllocator().buffer(capacity: byteCount)
        base = buffer.withUnsafeMutableWritableBytes { $0.baseAddress! }
        self.buffer = buffer
    }
}
