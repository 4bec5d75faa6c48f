import OakModels
import OakStore
import Testing

/// The rule of deletes over what still refers to the record (`StillReferenced`), over names a backend read.
@Suite("Deletes still referenced rule")
struct StillReferencedTests {
    @Test("a taxon named by taxa below it or by species is a 409 listing both; one named by none passes")
    func taxon() throws {
        let taxon = Taxon(name: "Lobatae", level: .section, parent: "Quercus")
        let error = oakError { try StillReferenced.checkTaxonDelete(taxon, childTaxa: ["Coccineae"], species: ["rubra", "velutina"]) }
        #expect(error?.code == .conflict)
        #expect(error?.message == "Taxon section 'Lobatae' is still used by 1 taxa and 2 species")
        #expect(error?.details?["blocking_taxa"] == .array([.string("Coccineae")]))
        #expect(error?.details?["blocking_species"] == .array([.string("rubra"), .string("velutina")]))
        #expect(oakError { try StillReferenced.checkTaxonDelete(taxon, childTaxa: [], species: ["rubra"]) }?.code == .conflict)
        try StillReferenced.checkTaxonDelete(taxon, childTaxa: [], species: [])
    }

    @Test("a source some species have data from is a 409 listing them; an unused one passes")
    func source() throws {
        let error = oakError { try StillReferenced.checkSourceDelete(id: 4, species: ["alba"]) }
        #expect(error?.code == .conflict)
        #expect(error?.message == "Source 4 is used by the data of 1 species; delete that data first")
        #expect(error?.details?["blocking_species"] == .array([.string("alba")]))
        try StillReferenced.checkSourceDelete(id: 4, species: [])
    }

    @Test("a species that is a hybrid's parent is a 409 listing the hybrids; one that is none passes")
    func species() throws {
        let alba = Species(scientificName: "alba")
        let error = oakError { try StillReferenced.checkSpeciesDelete(alba, hybrids: ["× bebbiana", "× jackiana"]) }
        #expect(error?.code == .conflict)
        #expect(error?.message == "Species 'alba' is a parent of 2 hybrid(s); change or delete them first")
        #expect(error?.details?["blocking_hybrids"] == .array([.string("× bebbiana"), .string("× jackiana")]))
        try StillReferenced.checkSpeciesDelete(alba, hybrids: [])
    }
}
