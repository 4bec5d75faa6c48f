import Foundation
import OakModels
import OakStore
import Testing

/// The rule of a new note (`NewNote`), over facts given as a backend would read them.
@Suite("New note rule")
struct NewNoteTests {
    private let id = UUID(uuidString: "2C1F0E3A-5B6C-4D7E-8F90-A1B2C3D4E5F6")!
    private let now = Date(timeIntervalSince1970: 1_767_268_800)

    private func record(storedName: String? = "alba", sourceId: Int? = nil, leaf: String = "lobed") throws -> SpeciesSource {
        try NewNote.record(id: id, name: "Quercus alba", storedName: storedName, sourceId: sourceId, fields: NoteFields(leaf: leaf), at: now)
    }

    @Test("a body without a species name is a 400 naming scientificName")
    func nameRequired() {
        let error = oakError { try NewNote.parts(of: NoteInput(scientificName: "  ")) }
        #expect(error?.code == .validationError)
        #expect(fields(of: error) == ["scientificName"])
    }

    @Test("the parts of a new note: the trimmed name and the body's fields over empty ones")
    func parts() throws {
        var patch = NoteFieldsPatch()
        try patch.set("leaf", to: "lobed")
        let (name, fields) = try NewNote.parts(of: NoteInput(scientificName: " alba ", fields: patch))
        #expect(name == "alba")
        #expect(fields == NoteFields(leaf: "lobed"))
    }

    @Test("an id another note has is a 409 naming it; a free id passes")
    func idTaken() throws {
        let error = oakError { try NewNote.checkID(id, taken: true) }
        #expect(error?.code == .conflict)
        #expect(error?.message == "A note with id \(id.wireString) already exists")
        #expect(error?.details?["id"] == .string(id.wireString))
        try NewNote.checkID(id, taken: false)
    }

    @Test("a species stored under no spelling of the name is a 400 naming scientificName")
    func unknownSpecies() {
        let error = oakError { try record(storedName: nil) }
        #expect(error?.code == .validationError)
        #expect(error?.fieldErrors.first?.message == "no species named 'alba' exists")
        #expect(fields(of: error) == ["scientificName"])
    }

    @Test("the row: the species as stored, the personal-observation source and preferred unless another source, its fields, made now")
    func row() throws {
        let personal = try record()
        #expect(personal.uuid == id)
        #expect(personal.scientificName == "alba")
        #expect(personal.sourceId == Source.personalObservationID)
        #expect(personal.isPreferred)
        #expect(personal.leaves == "lobed")
        #expect(personal.createdAt == now && personal.updatedAt == now)
        let other = try record(sourceId: 1)
        #expect(other.sourceId == 1)
        #expect(!other.isPreferred)
    }

    @Test("invalid fields are a 400 naming the note's field, not the column, before the source or the pair is checked")
    func invalidFieldsFirst() {
        let error = oakError { try record(leaf: String(repeating: "x", count: FieldLimits.longText + 1)) }
        #expect(error?.code == .validationError)
        #expect(fields(of: error) == ["fields.leaf"])
    }

    @Test("an unknown source is a 400 naming sourceId, even when the pair also has a note")
    func unknownSource() throws {
        let new = try record(sourceId: 9)
        let error = oakError { try NewNote.checkPlace(of: new, sourceExists: false, existing: "other") }
        #expect(error?.code == .validationError)
        #expect(fields(of: error) == ["sourceId"])
        #expect(error?.fieldErrors.first?.message == "no source with id 9 exists")
    }

    @Test("a species with a note from the source already is a 409 naming that note; a free pair passes")
    func pairTaken() throws {
        let new = try record()
        let error = oakError { try NewNote.checkPlace(of: new, sourceExists: true, existing: "other-id") }
        #expect(error?.code == .conflict)
        #expect(error?.message == "Species 'alba' already has a note from source 3")
        #expect(error?.details?["id"] == .string("other-id"))
        try NewNote.checkPlace(of: new, sourceExists: true, existing: nil)
    }
}
