extension Sequence<UInt8> {
    /// The bytes as lowercase hexadecimal, two digits each (digests, tokens, ETags).
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A strong ETag from a digest of the content: its first 16 bytes in hex, quoted.
    public var strongETag: String {
        "\"" + prefix(16).hexString + "\""
    }
}
