import Foundation

extension Sequence<UInt8> {
    /// The bytes as lowercase hexadecimal, two digits each (digests, tokens, ETags).
    @inlinable
    public var hexString: String {
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            text.append(hexDigit(byte >> 4))
            text.append(hexDigit(byte & 0x0F))
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A strong ETag from a digest of the content: its first 16 bytes in hex, quoted.
    @inlinable
    public var strongETag: String {
        "\"" + prefix(16).hexString + "\""
    }
}

/// The lowercase hexadecimal digit of a value below 16.
@inlinable
func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
}

extension UUID {
    /// An id as the API writes and the stores keep it: lowercase and hyphenated. (`uuidString` is upper case,
    /// and on Linux it is made with `sprintf`, too slow for every note of a push: see BENCHMARKS.md,
    /// "Server round 2", item 20.)
    public var wireString: String {
        withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                var index = 0
                for (position, byte) in bytes.enumerated() {
                    if position == 4 || position == 6 || position == 8 || position == 10 {
                        text[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    text[index] = hexDigit(byte >> 4)
                    text[index + 1] = hexDigit(byte & 0x0F)
                    index += 2
                }
                return index
            }
        }
    }

    /// Reads an id written as `wireString` writes it, in either case: 36 characters, hyphens at 8, 13, 18 and
    /// 23, hexadecimal digits elsewhere; nil for anything else. (`UUID(uuidString:)` parses with `sscanf` on
    /// Linux, too slow for every note of a push, and lets some other forms through: see BENCHMARKS.md,
    /// "Server round 2", item 21.)
    public init?(wireString text: String) {
        var text = text
        let parsed: uuid_t? = text.withUTF8 { characters in
            guard characters.count == 36 else { return nil }
            var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let complete = withUnsafeMutableBytes(of: &value) { bytes in
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        guard characters[position] == UInt8(ascii: "-") else { return false }
                        position += 1
                    }
                    guard let high = hexValue(characters[position]), let low = hexValue(characters[position + 1]) else { return false }
                    bytes[index] = high << 4 | low
                    position += 2
                }
                return true
            }
            return complete ? value : nil
        }
        guard let parsed else { return nil }
        self.init(uuid: parsed)
    }
}

/// The value of a hexadecimal digit in either case; nil for any other character.
@inlinable
func hexValue(_ character: UInt8) -> UInt8? {
    switch character {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
    default: nil
    }
}
