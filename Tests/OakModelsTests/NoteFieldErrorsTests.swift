import Foundation
import OakModels
import Testing

@Suite("Note field errors")
struct NoteFieldErrorsTests {
    @Test("a note field that is too long is named as the notes API names it (fields.leaf), never by its column, for every field")
    func errorsNameNoteFields() throws {
        for field in NoteFields.Field.allCases {
            var fields = NoteFields()
            fields[field] = String(repeating: "x", count: FieldLimits.longText + 1)
            var record = SpeciesSource(scientificName: "alba", sourceId: Source.personalObservationID)
            fields.apply(to: &record)
            do {
                try NoteFields.validate(record)
                Issue.record("\(field) too long must be refused")
            } catch let error as OakError {
                #expect(error.code == .validationError)
                #expect(error.fieldErrors.map(\.field) == ["fields.\(field.rawValue)"], "\(field)")
                #expect(error.message.hasPrefix("fields.\(field.rawValue) "), "\(error.message)")
            }
        }
        var record = SpeciesSource(scientificName: "alba", sourceId: Source.personalObservationID)
        NoteFields(leaf: "lobed", acorn: "small").apply(to: &record)
        try NoteFields.validate(record)
    }
}
