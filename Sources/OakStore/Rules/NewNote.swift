import Foundation
import OakModels

/// The rule of a new note (`POST /api/v1/notes`, and a pushed note the server does not hold), over what a backend
/// read. In this order: the body names a species (400), the id is free (409), a species exists under some spelling
/// of the name (400 naming `scientificName`), the fields are valid (400 naming the field), the source exists (400
/// naming `sourceId`) and the species has no note from that source yet (409 naming that note). A body the server
/// would refuse is so a 400 before any conflict with what is stored.
package enum NewNote {
    /// What a new note is made of: its species' name (required) and its fields.
    package static func parts(of input: NoteInput) throws -> (scientificName: String, fields: NoteFields) {
        guard let name = input.scientificName?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
            throw OakError.invalid("scientificName", "is required")
        }
        var fields = NoteFields()
        input.fields.apply(to: &fields)
        return (name, fields)
    }

    /// Refuses an id another note already has (`taken`).
    package static func checkID(_ id: UUID, taken: Bool) throws {
        if taken {
            throw OakError(.conflict, "A note with id \(id.wireString) already exists", details: ["id": .string(id.wireString)])
        }
    }

    /// A new note's row for a species by the name it is stored under (`storedName`, nil when no species has the
    /// name the note gave), from the personal-observation source unless another, its fields validated.
    package static func record(id: UUID, name: String, storedName: String?, sourceId: Int?, fields: NoteFields, at time: Date) throws
        -> SpeciesSource
    {
        guard let storedName else {
            throw OakError.unknownReference("scientificName", "no species named '\(Species.normalizedName(name))' exists")
        }
        return try record(id: id, species: storedName, sourceId: sourceId ?? Source.personalObservationID, fields: fields, at: time)
    }

    /// The row of a new note of an existing species and source, its fields validated; a personal observation is
    /// its species' preferred description.
    package static func record(id: UUID, species: String, sourceId: Int, fields: NoteFields, at time: Date) throws -> SpeciesSource {
        var record = SpeciesSource(
            uuid: id, scientificName: species, sourceId: sourceId, isPreferred: sourceId == Source.personalObservationID, createdAt: time,
            updatedAt: time)
        fields.apply(to: &record)
        try NoteFields.validate(record)
        return record
    }

    /// Refuses a new note's row whose source does not exist (`sourceExists`) or whose species already has a note
    /// from the source (`existing`, that note's id).
    package static func checkPlace(of record: SpeciesSource, sourceExists: Bool, existing: String?) throws {
        guard sourceExists else { throw OakError.unknownReference("sourceId", "no source with id \(record.sourceId) exists") }
        if let existing {
            throw OakError(
                .conflict, "Species '\(record.scientificName)' already has a note from source \(record.sourceId)",
                details: ["id": .string(existing)])
        }
    }
}
