import Foundation
import OakModels
import OakStore
import OakTestBasics
import OakTestSupport
import Testing

@testable import OakStoreSQLite

@Suite("Starter dataset")
struct StarterDatasetTests {
    @Test("a new database gets the three standard sources and the starter species and taxa")
    func newDatabaseIsSeeded() async throws {
        let path = temporaryDatabasePath("oak-new")
        let store = try SQLiteStore(path: path)
        #expect(try await store.listSources().map(\.name) == ["iNaturalist", "Oaks of the World", "Oak Compendium"])
        let species = try await store.listSpecies(filter: SpeciesFilter(), limit: 1000, offset: 0).data
        #expect(species.count >= 40)
        #expect(Set(species.compactMap(\.subgenus)).isSuperset(of: ["Quercus", "Cerris"]))
        // Reopening does not seed twice.
        let again = try SQLiteStore(path: path)
        #expect(try await again.listSpecies(filter: SpeciesFilter(), limit: 1, offset: 0).pagination.total == species.count)
    }

    @Test("the starter dataset is consistent: parents, hybrids and taxa all exist")
    func consistent() throws {
        let document = try StarterDataset.load()
        let names = Set(document.species.map(\.scientificName))
        #expect(names.count == document.species.count)
        let hybrids = document.species.filter(\.isHybrid)
        #expect(hybrids.count >= 5)
        for hybrid in hybrids {
            #expect(hybrid.parent1.map(names.contains) == true, "\(hybrid.scientificName) parent1")
            #expect(hybrid.parent2.map(names.contains) == true, "\(hybrid.scientificName) parent2")
        }
        let sections = Set(document.taxa.filter { $0.level == .section }.map(\.name))
        for species in document.species {
            try species.validate()
            if let section = species.section { #expect(sections.contains(section), "\(species.scientificName) section") }
            for related in species.hybrids + species.closelyRelatedTo { #expect(names.contains(related)) }
        }
    }
}
