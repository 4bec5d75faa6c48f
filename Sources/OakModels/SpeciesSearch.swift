import Foundation

/// The species search rule, for searching without the server: what matches a query and in which order.
/// The server's SQL search (`SQLiteStore.matchingSpecies`) implements the same rule over its indexes, and
/// a test holds the two to the same answers over the starter catalog.
///
/// A species matches when its name, a synonym or a local name contains the query (ignoring case), or
/// when every word of the query starts a word of those names (ignoring case and diacritics: "chene"
/// finds "chêne"). Exact names come first, then names starting with the query, then synonyms or local
/// names starting with it, then the rest; each group by name.
public struct SpeciesSearch: Sendable {
    /// The query as a species name is normalized ("Quercus alba" is "alba", "x bebbiana" is "× bebbiana").
    public let text: String
    private let folded: String
    private let words: [String]

    public init(query: String) {
        text = Species.normalizedName(query)
        folded = text.lowercased()
        words = Self.words(of: text).prefix(16).map { $0 }
    }

    /// Whether the query has anything to search for.
    public var isEmpty: Bool { text.isEmpty }

    /// The species that match, best first, at most `limit`; `localNames` gives a species' local names.
    public func rank(_ species: [Species], localNames: (Species) -> [String], limit: Int) -> [Species] {
        guard !isEmpty else { return [] }
        let ranked = species.compactMap { item -> (rank: Int, species: Species)? in
            rank(of: item, localNames: localNames(item)).map { ($0, item) }
        }
        return ranked.sorted { ($0.rank, $0.species.scientificName) < ($1.rank, $1.species.scientificName) }
            .prefix(limit).map(\.species)
    }

    /// The group a species falls in (0 best), or nil when it does not match.
    public func rank(of species: Species, localNames: [String]) -> Int? {
        let name = species.scientificName.lowercased()
        let hybridForm = "\(Species.hybridSign) \(folded)"
        let others = (species.synonyms + localNames).map { $0.lowercased() }
        let contains = ([name] + others).contains { $0.contains(folded) }
        guard contains || matchesWords(([species.scientificName] + species.synonyms + localNames)) else { return nil }
        if name == folded || name == hybridForm { return 0 }
        if name.hasPrefix(folded) || name.hasPrefix(hybridForm) { return 1 }
        if others.contains(where: { $0.hasPrefix(folded) }) { return 2 }
        return 3
    }

    /// Whether every word of the query starts some word of `names`, ignoring case and diacritics.
    private func matchesWords(_ names: [String]) -> Bool {
        guard !words.isEmpty else { return false }
        let tokens = names.flatMap(Self.words(of:))
        return words.allSatisfy { word in tokens.contains { $0.hasPrefix(word) } }
    }

    /// The words of a text, folded: split on anything not a letter or digit, lowercased, diacritics removed.
    private static func words(of text: String) -> [String] {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
    }
}
