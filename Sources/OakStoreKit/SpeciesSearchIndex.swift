import Foundation
import OakModels

/// Every species' searchable names in memory, with two indexes that find the candidates of a query without
/// looking at every species: which species contain each three-byte run (trigram) of their lowercased names,
/// and every folded word, sorted, with the species it belongs to. The candidates are then checked and
/// ranked by the shared rule (`SpeciesSearch`), so the answers are the rule's by construction.
///
/// It is in memory, not in SQLite's full-text indexes (migration v11 drops those): keeping an index in the
/// database current is most of the cost of a pushed note, and an infix search there reads one posting list per
/// trigram from disk pages (see BENCHMARKS.md, "Substring search"). It is independent of the database: a store
/// fills it (`load`) and then applies what the change log says changed.
package struct SpeciesSearchIndex {
    /// The names of one species as they are now: its synonyms and the local names of all its source rows.
    package struct Names {
        package var synonyms: [String]
        package var localNames: [String]

        package init(synonyms: [String], localNames: [String]) {
            self.synonyms = synonyms
            self.localNames = localNames
        }
    }

    /// The change-log position the index reflects; nil before it is filled.
    package private(set) var head: Int64?
    /// Which species each source row with local names belongs to, by note id: all that is kept of rows, so a
    /// row deleted or moved to another species tells which document to build again.
    private var speciesOfRow: [UUID: String] = [:]
    /// Documents by slot; a removed species leaves its slot free for the next one.
    private var documents: [SpeciesSearch.Document?] = []
    private var freeSlots: [Int32] = []
    private var slotOfSpecies: [String: Int32] = [:]
    /// Trigram → the slots whose names contain it, sorted.
    private var trigrams: [UInt32: [Int32]] = [:]
    /// Each slot's place among the scientific names in order (the rule's tie-break), kept by `finish(at:)`.
    private var nameOrder: [Int32] = []
    private var nameOrderIsStale = false
    /// Every folded word, sorted, and the slots whose names have it.
    private var sortedTokens: [[UInt8]] = []
    private var tokenSlots: [[UInt8]: [Int32]] = [:]
    /// Set while `load` fills the index, which sorts the words once at the end.
    private var isLoading = false

    package init() {}

    /// Replaces everything with the given species and the species of each source row with local names.
    package mutating func load(species: [String: Names], speciesOfRow: [UUID: String], head: Int64) {
        self = SpeciesSearchIndex()
        self.speciesOfRow = speciesOfRow
        isLoading = true
        for (name, names) in species { setSpecies(name, names) }
        isLoading = false
        // Sorted once, not kept sorted word by word.
        sortedTokens = tokenSlots.keys.sorted { $0.lexicographicallyPrecedes($1) }
        finish(at: head)
    }

    /// Records which species a source row belongs to now (nil: it is gone or has no local names), and returns
    /// the species it belonged to before; both species' documents are then due to be set again.
    package mutating func setRow(_ id: UUID, species: String?) -> String? {
        if let species {
            return speciesOfRow.updateValue(species, forKey: id)
        }
        return speciesOfRow.removeValue(forKey: id)
    }

    /// Sets a species' document from its names as they are now; nil: the species is gone.
    package mutating func setSpecies(_ name: String, _ names: Names?) {
        if let slot = slotOfSpecies[name] { unindex(slot) }
        guard let names else {
            if let slot = slotOfSpecies.removeValue(forKey: name) {
                freeSlots.append(slot)
                nameOrderIsStale = true
            }
            return
        }
        let document = SpeciesSearch.Document(scientificName: name, synonyms: names.synonyms, localNames: names.localNames)
        let slot: Int32
        if let existing = slotOfSpecies[name] {
            slot = existing
        } else {
            slot = freeSlots.popLast() ?? Int32(documents.count)
            if Int(slot) == documents.count { documents.append(nil) }
            slotOfSpecies[name] = slot
            nameOrderIsStale = true
        }
        documents[Int(slot)] = document
        for trigram in Self.trigrams(of: document) { Self.insert(slot, into: &trigrams[trigram, default: []]) }
        for token in document.tokens {
            if tokenSlots[token] == nil && !isLoading {
                sortedTokens.insert(token, at: SpeciesSearch.firstIndex(notBefore: token, in: sortedTokens))
            }
            Self.insert(slot, into: &tokenSlots[token, default: []])
        }
    }

    /// The scientific names that match, best first, at most `limit`.
    package func search(_ search: SpeciesSearch, limit: Int) -> [String] {
        guard !search.isEmpty, limit > 0 else { return [] }
        var isCandidate = [Bool](repeating: false, count: documents.count)
        for slot in substringCandidates(search.pattern) { isCandidate[Int(slot)] = true }
        markWordCandidates(search.words, in: &isCandidate)
        var ranked: [(rank: Int, order: Int32, slot: Int)] = []
        for slot in isCandidate.indices where isCandidate[slot] {
            guard let document = documents[slot], let rank = search.rank(of: document) else { continue }
            ranked.append((rank, nameOrder[slot], slot))
        }
        ranked.sort { ($0.rank, $0.order) < ($1.rank, $1.order) }
        return ranked.prefix(limit).compactMap { documents[$0.slot]?.scientificName }
    }

    /// Slots that may contain the pattern: those having each of its trigrams, or every slot for a pattern
    /// shorter than a trigram.
    private func substringCandidates(_ pattern: [UInt8]) -> [Int32] {
        guard pattern.count >= 3 else { return Array(slotOfSpecies.values) }
        let lists = Set(Self.trigrams(of: pattern[...])).map { trigrams[$0] ?? [] }.sorted { $0.count < $1.count }
        guard var result = lists.first else { return [] }
        for list in lists.dropFirst() where !result.isEmpty { result = Self.intersection(result, list) }
        return result
    }

    /// Marks the slots that have, for each query word, a word starting with it.
    private func markWordCandidates(_ words: [[UInt8]], in isCandidate: inout [Bool]) {
        guard !words.isEmpty else { return }
        // A slot's count of query words matched so far: it moves from i to i + 1 only on word i.
        var matched = [Int](repeating: 0, count: documents.count)
        for (number, word) in words.enumerated() {
            var index = SpeciesSearch.firstIndex(notBefore: word, in: sortedTokens)
            while index < sortedTokens.count && sortedTokens[index].starts(with: word) {
                for slot in tokenSlots[sortedTokens[index]] ?? [] where matched[Int(slot)] == number { matched[Int(slot)] = number + 1 }
                index += 1
            }
        }
        for slot in matched.indices where matched[slot] == words.count { isCandidate[slot] = true }
    }

    /// Records that the index now reflects the change log up to `head`, putting the names in order again
    /// if species came or went.
    package mutating func finish(at head: Int64) {
        if nameOrderIsStale {
            nameOrder = [Int32](repeating: 0, count: documents.count)
            let names = slotOfSpecies.sorted { $0.key < $1.key }
            for (order, entry) in names.enumerated() { nameOrder[Int(entry.value)] = Int32(order) }
            nameOrderIsStale = false
        }
        self.head = head
    }

    /// Takes a slot's document out of both indexes (the slot stays assigned).
    private mutating func unindex(_ slot: Int32) {
        guard let document = documents[Int(slot)] else { return }
        documents[Int(slot)] = nil
        for trigram in Self.trigrams(of: document) {
            Self.remove(slot, from: &trigrams[trigram, default: []])
            if trigrams[trigram]?.isEmpty == true { trigrams[trigram] = nil }
        }
        for token in document.tokens {
            Self.remove(slot, from: &tokenSlots[token, default: []])
            if tokenSlots[token]?.isEmpty == true {
                tokenSlots[token] = nil
                let index = SpeciesSearch.firstIndex(notBefore: token, in: sortedTokens)
                if index < sortedTokens.count && sortedTokens[index] == token { sortedTokens.remove(at: index) }
            }
        }
    }

    /// The trigrams of all of a document's names, each once.
    private static func trigrams(of document: SpeciesSearch.Document) -> Set<UInt32> {
        Set(document.texts.flatMap(trigrams(of:)))
    }

    /// Every run of three bytes of a text, as a number.
    private static func trigrams(of text: ArraySlice<UInt8>) -> [UInt32] {
        guard text.count >= 3 else { return [] }
        return (text.startIndex...(text.endIndex - 3)).map { UInt32(text[$0]) << 16 | UInt32(text[$0 + 1]) << 8 | UInt32(text[$0 + 2]) }
    }

    private static func insert(_ slot: Int32, into list: inout [Int32]) {
        let index = lowerBound(slot, in: list)
        if index == list.count || list[index] != slot { list.insert(slot, at: index) }
    }

    private static func remove(_ slot: Int32, from list: inout [Int32]) {
        let index = lowerBound(slot, in: list)
        if index < list.count && list[index] == slot { list.remove(at: index) }
    }

    private static func lowerBound(_ slot: Int32, in list: [Int32]) -> Int {
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle] < slot { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The slots in both sorted lists.
    private static func intersection(_ first: [Int32], _ second: [Int32]) -> [Int32] {
        var result: [Int32] = []
        var (i, j) = (0, 0)
        while i < first.count && j < second.count {
            if first[i] == second[j] {
                result.append(first[i])
                i += 1
                j += 1
            } else if first[i] < second[j] {
                i += 1
            } else {
                j += 1
            }
        }
        return result
    }
}
