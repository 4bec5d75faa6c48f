import OakModels
import OakStore
import Testing

/// The rule of a new species (`SpeciesWrite`), over what a backend read.
@Suite("Species write rule")
struct SpeciesWriteTests {
    @Test("a new species under a name one is stored under is a 409 naming it; a free name passes")
    func newSpecies() throws {
        let alba = Species(scientificName: "alba")
        let error = oakError { try SpeciesWrite.create(alba, alreadyExists: true) }
        #expect(error?.code == .conflict)
        #expect(error?.message == "Species 'alba' already exists")
        #expect(error?.details?["scientific_name"] == .string("alba"))
        #expect(try SpeciesWrite.create(alba, alreadyExists: false) == alba)
    }
}
