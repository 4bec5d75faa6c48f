import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The species search rule, the one definition the server's in-memory index and the offline client share:
/// what matches a query and in which order.
///
/// A species matches when its name, a synonym or a local name contains the query (ignoring case), or
/// when every word of the query starts a word of those names (ignoring case and diacritics: "chene"
/// finds "chêne"). Exact names come first, then names starting with the query, then synonyms or local
/// names starting with it, then the rest; each group by name. Texts are compared as lowercased UTF-8.
public struct SpeciesSearch: Sendable {
    /// The query as a species name is normalized ("Quercus alba" is "alba", "x bebbiana" is "× bebbiana").
    public let text: String
    /// The query, lowercased, as UTF-8: what a name must contain.
    public let pattern: [UInt8]
    /// The query with the hybrid sign before it ("× bebbiana"), for names that are hybrids.
    private let hybridPattern: [UInt8]
    /// The query at the start of a synonym or local name (see `Document.others`).
    private let startPattern: [UInt8]
    /// The query's words, folded (see `words(of:)`): each must start a word of the names.
    public let words: [[UInt8]]

    public init(query: String) {
        text = Species.normalizedName(query)
        pattern = Array(text.lowercased().utf8)
        hybridPattern = Array("\(Species.hybridSign) ".utf8) + pattern
        startPattern = [0] + pattern
        words = Array(Self.words(of: text).prefix(16))
    }

    /// Whether the query has anything to search for.
    public var isEmpty: Bool { text.isEmpty }

    /// A species' searchable names, prepared once for any number of queries.
    public struct Document: Sendable {
        public let scientificName: String
        /// The scientific name, lowercased, as UTF-8.
        let name: [UInt8]
        /// Synonyms and local names, lowercased, as UTF-8, each after a 0 byte (which no query holds), so
        /// one scan finds a query in any of them and "starts one of them" is "follows a 0".
        let others: [UInt8]
        /// Every folded word of the names, sorted, without repeats.
        public let tokens: [[UInt8]]

        public init(scientificName: String, synonyms: [String], localNames: [String]) {
            self.scientificName = scientificName
            name = Array(scientificName.lowercased().utf8)
            others = (synonyms + localNames).reduce(into: []) {
                $0.append(0)
                $0.append(contentsOf: $1.lowercased().utf8)
            }
            let words = ([scientificName] + synonyms + localNames).flatMap(SpeciesSearch.words(of:))
            tokens = Set(words).sorted { $0.lexicographicallyPrecedes($1) }
        }

        /// The lowercased names a query must be part of: the scientific name, then synonyms and local names.
        public var texts: [ArraySlice<UInt8>] { [name[...]] + others.split(separator: 0) }
    }

    /// The species that match, best first, at most `limit`; `localNames` gives a species' local names.
    public func rank(_ species: [Species], localNames: (Species) -> [String], limit: Int) -> [Species] {
        guard !isEmpty else { return [] }
        let ranked = species.compactMap { item -> (rank: Int, species: Species)? in
            let document = Document(scientificName: item.scientificName, synonyms: item.synonyms, localNames: localNames(item))
            return rank(of: document).map { ($0, item) }
        }
        return ranked.sorted { ($0.rank, $0.species.scientificName) < ($1.rank, $1.species.scientificName) }
            .prefix(limit).map(\.species)
    }

    /// The group a species falls in (0 best), or nil when it does not match.
    public func rank(of document: Document) -> Int? {
        guard !isEmpty else { return nil }
        let contains = Self.contains(document.name, pattern) || Self.contains(document.others, pattern)
        guard contains || matchesWords(document.tokens) else { return nil }
        if document.name == pattern || document.name == hybridPattern { return 0 }
        if document.name.starts(with: pattern) || document.name.starts(with: hybridPattern) { return 1 }
        if Self.contains(document.others, startPattern) { return 2 }
        return 3
    }

    /// Whether every word of the query starts some word of the sorted `tokens`.
    private func matchesWords(_ tokens: [[UInt8]]) -> Bool {
        guard !words.isEmpty else { return false }
        return words.allSatisfy { word in
            let start = Self.firstIndex(notBefore: word, in: tokens)
            return start < tokens.count && tokens[start].starts(with: word)
        }
    }

    /// The index of the first of the sorted `tokens` not ordered before `word` (where words it starts are).
    public static func firstIndex(notBefore word: [UInt8], in tokens: [[UInt8]]) -> Int {
        var low = 0
        var high = tokens.count
        while low < high {
            let middle = (low + high) / 2
            if tokens[middle].lexicographicallyPrecedes(word) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Whether `text` contains `part`, byte for byte.
    public static func contains(_ text: [UInt8], _ part: [UInt8]) -> Bool {
        guard !part.isEmpty else { return true }
        guard text.count >= part.count else { return false }
        return text.withUnsafeBytes { text in
            part.withUnsafeBytes { part in
                // memchr finds each place the first byte occurs (vectorized); memcmp checks the rest there.
                guard let base = text.baseAddress, let needle = part.baseAddress else { return false }
                var offset = 0
                let last = text.count - part.count
                while offset <= last {
                    guard let hit = memchr(base + offset, Int32(part[0]), last - offset + 1) else { return false }
                    if memcmp(hit, needle, part.count) == 0 { return true }
                    offset = base.distance(to: UnsafeRawPointer(hit)) + 1
                }
                return false
            }
        }
    }

    /// The words of a text, folded: split on anything not a letter or digit, lowercased, diacritics
    /// removed, as UTF-8.
    public static func words(of text: String) -> [[UInt8]] {
        var text = text
        if let words = text.withUTF8(asciiWords) { return words }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { Array($0.utf8) }
    }

    /// `words(of:)` for ASCII text, the common case, without Unicode tables: letters and digits are a–z,
    /// A–Z and 0–9, and folding is lowercasing. Nil when the text is not ASCII.
    private static func asciiWords(_ bytes: UnsafeBufferPointer<UInt8>) -> [[UInt8]]? {
        var words: [[UInt8]] = []
        var word: [UInt8] = []
        for byte in bytes {
            guard byte < 0x80 else { return nil }
            let lower = (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
            if (0x61...0x7A).contains(lower) || (0x30...0x39).contains(lower) {
                word.append(lower)
            } else if !word.isEmpty {
                words.append(word)
                word.removeAll(keepingCapacity: true)
            }
        }
        if !word.isEmpty { words.append(word) }
        return words
    }
}
