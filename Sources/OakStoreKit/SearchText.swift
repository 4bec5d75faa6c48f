import OakModels

/// What a search looks for: the query as a species name is normalized ("x bebbiana" is "× bebbiana",
/// "Quercus alba" is "alba") and the species rule for it; a query without text or with a NUL is refused.
package struct SearchText {
    package let text: String
    package let rule: SpeciesSearch
    /// The text with ASCII letters lowercased, as SQLite's `lower` folds it.
    private let folded: [UInt8]

    package init(_ query: String) throws {
        if query.utf8.contains(0) { throw OakError.invalid("q", "must not contain NUL characters") }
        rule = SpeciesSearch(query: query)
        text = rule.text
        guard !text.isEmpty else { throw OakError.invalid("q", "is required") }
        folded = Self.folded(text)
    }

    /// The rank of a taxon's or source's name (given `folded`) under the search rule, nil when the name does
    /// not contain the text: 0 equal to it, 1 starting with it, 2 containing it, ignoring ASCII case (as
    /// SQLite's `lower` and `NOCASE` do).
    package func nameRank(folded name: [UInt8]) -> Int? {
        guard name.count >= folded.count else { return nil }
        if name.starts(with: folded) { return name.count == folded.count ? 0 : 1 }
        guard name.count > folded.count else { return nil }
        for start in 1...(name.count - folded.count) where name[start] == folded[0] {
            if name[start..<(start + folded.count)].elementsEqual(folded) { return 2 }
        }
        return nil
    }

    /// A text with ASCII letters lowercased, as SQLite's `lower` folds it.
    package static func folded(_ text: String) -> [UInt8] {
        text.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }
    }
}
