import OakModels

/// What a search looks for: the query as a species name is normalized ("x bebbiana" is "× bebbiana",
/// "Quercus alba" is "alba") and the species rule for it; a query without text or with a NUL is refused.
package struct SearchText {
    package let text: String
    package let rule: SpeciesSearch

    package init(_ query: String) throws {
        if query.contains("\0") { throw OakError.invalid("q", "must not contain NUL characters") }
        rule = SpeciesSearch(query: query)
        text = rule.text
        guard !text.isEmpty else { throw OakError.invalid("q", "is required") }
    }
}
