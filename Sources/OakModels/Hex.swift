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

    /// A strong ETag from a digest of the content: its first 16 bytes in hex, quoted. (Written in place: it
    /// is computed for every answer the response cache sees.)
    @inlinable
    public var strongETag: String {
        var bytes = makeIterator()
        return String(unsafeUninitializedCapacity: 34) { text in
            text[0] = UInt8(ascii: "\"")
            var end = 1
            while end < 33, let byte = bytes.next() {
                text[end] = hexDigit(byte >> 4)
                text[end + 1] = hexDigit(byte & 0x0F)
                end += 2
            }
            text[end] = UInt8(ascii: "\"")
            return end + 1
        }
    }
}

/// The lowercase hexadecimal digit of a value below 16.
@inlinable
func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
}
