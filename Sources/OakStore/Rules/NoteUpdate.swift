import Foundation
import OakModels

/// The rule of a note's update (`PUT /api/v1/notes/{id}`), over what a backend read: the note as stored, its row
/// and, when the body names a species, the name that species is stored under. In this order: the fields after the
/// update are valid (a body the server would refuse is a 400 whatever version it was meant for), the note is at
/// the version an `If-Match` named (412), and the body names the note's own species and source (409: neither
/// ever changes). An update that changes nothing is not a new version; one that does is made on the current
/// version, so the fields it changes are written after it (the sync rule's time).
package enum NoteUpdate: Equatable, Sendable {
    /// Nothing to write: the answer is the note as stored.
    case unchanged
    /// Write this row; the answer is the note as stored after.
    case save(SpeciesSource)

    /// Decides an update of `current`, whose row is `row`. `storedName` is the name the species the body names is
    /// stored under (`existingName ?? Species.normalizedName`), nil when the body names none.
    package static func decide(
        _ input: NoteInput, expectedVersion: Int64?, current: Note, row: SpeciesSource, storedName: String?, now: Date
    ) throws -> NoteUpdate {
        var fields = current.fields
        input.fields.apply(to: &fields)
        var record = try Self.row(row, with: fields)
        try current.check(expectedVersion: expectedVersion)
        if let storedName, storedName != current.scientificName {
            throw OakError.conflicting("scientificName", "a note's species cannot change; create a new note instead")
        }
        if let sourceId = input.sourceId, sourceId != current.sourceId {
            throw OakError.conflicting("sourceId", "a note's source cannot change")
        }
        guard fields != current.fields else { return .unchanged }
        record.stamp(SyncRules.edit(current.timedFields, to: fields, at: SyncRules.hybridTime(now, after: current.updatedAt)))
        return .save(record)
    }

    /// A note's row holding `note`'s fields with their times (a pushed update's merge), validated.
    package static func row(_ row: SpeciesSource, writing note: TimedFields) throws -> SpeciesSource {
        var record = try Self.row(row, with: note.fields)
        record.stamp(note)
        return record
    }

    /// A note's row with `fields` in its columns, validated (a 400 naming the note's field).
    private static func row(_ row: SpeciesSource, with fields: NoteFields) throws -> SpeciesSource {
        var record = row
        fields.apply(to: &record)
        try NoteFields.validate(record)
        return record
    }
}

extension Note {
    /// Refuses a write made for another version than the note's (an `If-Match`'s `expectedVersion`): 412.
    package func check(expectedVersion: Int64?) throws {
        if let expectedVersion, expectedVersion != version {
            throw OakError(
                .preconditionFailed, "The note has changed since version \(expectedVersion); it is at version \(version)",
                details: ["version": .number(Double(version))])
        }
    }
}

extension SpeciesSource {
    /// Takes the times of a note's fields and of its latest write (its fields are applied apart, by `NoteFields`).
    package mutating func stamp(_ note: TimedFields) {
        updatedAt = note.writtenAt
        fieldTimes = note.fieldTimes
    }
}
