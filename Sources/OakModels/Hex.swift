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
    /// and on Linux it is made with `sprintf`, which showed in a push's profile.)
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
}
