import Foundation
import OakModels
import Testing

@Suite("The species search rule")
struct SpeciesSearchTests {
    private let catalog = [
        Species(scientificName: "alba", synonyms: ["Quercus alba var. repanda"]),
        Species(scientificName: "albicaulis"),
        Species(scientificName: "× bebbiana"),
        Species(scientificName: "robur", synonyms: ["Quercus pedunculata"]),
        Species(scientificName: "rubra"),
    ]
    private let localNames = ["alba": ["White oak", "Chêne blanc"], "robur": ["English oak", "Albion oak"], "rubra": ["Northern red oak"]]

    private func search(_ query: String, limit: Int = 20) -> [String] {
        SpeciesSearch(query: query).rank(catalog, localNames: { localNames[$0.scientificName] ?? [] }, limit: limit).map(\.scientificName)
    }

    @Test("exact name first, then names starting with the query, then synonyms or local names starting with it, then the rest")
    func rankingGroups() {
        #expect(search("alb") == ["alba", "albicaulis", "robur"])  // robur: its local name "Albion oak" starts with it
        #expect(search("alba") == ["alba"])
        #expect(search("oak") == ["alba", "robur", "rubra"])
    }

    @Test("substrings match ignoring case; words match by their starts ignoring diacritics")
    func substringsAndWords() {
        #expect(search("ENGLISH") == ["robur"])
        #expect(search("nglis") == ["robur"])
        #expect(search("chene bl") == ["alba"])
        #expect(search("red north") == ["rubra"])
        #expect(search("Quercus alba") == ["alba"])  // the genus is dropped, as in a species name
    }

    @Test("a hybrid is found as 'x name', '× name' and 'name'")
    func hybrids() {
        #expect(search("x bebbiana") == ["× bebbiana"])
        #expect(search("× bebb") == ["× bebbiana"])
        #expect(search("bebbiana") == ["× bebbiana"])
    }

    @Test("an empty query finds nothing; the limit caps the answer")
    func emptyAndLimit() {
        #expect(search("   ").isEmpty)
        #expect(search("oak", limit: 2) == ["alba", "robur"])
    }

    @Test("the ASCII word split equals the Unicode one on every ASCII text")
    func asciiWordsMatchUnicodeFolding() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let length = Int.random(in: 0...24, using: &generator)
            let text = String((0..<length).map { _ in Character(Unicode.Scalar(UInt8.random(in: 0x01...0x7F, using: &generator))) })
            let unicode = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
                .split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { Array($0.utf8) }
            #expect(SpeciesSearch.words(of: text) == unicode, "\(text.debugDescription)")
        }
        #expect(SpeciesSearch.words(of: "Chêne-Blanc 2") == [Array("chene".utf8), Array("blanc".utf8), Array("2".utf8)])
    }

    @Test("byte search finds a part anywhere, at the edges, or not at all")
    func byteSearch() {
        let text = Array("white oak\u{0}chêne".utf8)
        #expect(SpeciesSearch.contains(text, Array("white".utf8)))
        #expect(SpeciesSearch.contains(text, Array("chêne".utf8)))
        #expect(SpeciesSearch.contains(text, Array("k\u{0}c".utf8)))
        #expect(!SpeciesSearch.contains(text, Array("oaks".utf8)))
        #expect(!SpeciesSearch.contains(Array("ab".utf8), Array("abc".utf8)))
        #expect(SpeciesSearch.contains(text, []))
    }
}
