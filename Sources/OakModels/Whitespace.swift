extension Unicode.Scalar {
    /// What Foundation's `.whitespacesAndNewlines` holds: Unicode's White_Space (spaces, tabs, line breaks) and
    /// the zero-width space.
    fileprivate var isWhitespaceOrNewline: Bool {
        properties.isWhitespace || self == "\u{200B}"
    }
}

extension Substring {
    /// The text without white space or line breaks at either end, as Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` trims it, without going through `NSString`, which is
    /// slow on Linux (see BENCHMARKS.md, "Server round 2", item 19).
    public var trimmingWhitespace: Substring {
        guard let first = unicodeScalars.firstIndex(where: { !$0.isWhitespaceOrNewline }),
            let last = unicodeScalars.lastIndex(where: { !$0.isWhitespaceOrNewline })
        else { return "" }
        return Substring(unicodeScalars[first...last])
    }
}

extension String {
    /// The text without white space or line breaks at either end (see `Substring.trimmingWhitespace`).
    public var trimmingWhitespace: Substring { self[...].trimmingWhitespace }
}

extension StringProtocol {
    /// Whether the text is empty or only white space and line breaks (see `Substring.trimmingWhitespace`).
    public var isBlank: Bool {
        unicodeScalars.allSatisfy(\.isWhitespaceOrNewline)
    }
}
