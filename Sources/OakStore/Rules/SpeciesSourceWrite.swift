import Foundation
import OakModels

/// The rule of a species' data from a source (`/api/v1/species/{name}/sources`), over what a backend read. A
/// create names its source (400 naming `source_id`), which must exist (400 naming `source_id`), and a species has
/// one row of data per source (409 naming the row there is); a personal observation is its species' preferred
/// description unless the body says otherwise. An update applies the body and is timed now.
package enum SpeciesSourceWrite {
    /// The row of data a species already has from a source: its row id and its uuid (as a note's id).
    package struct Existing: Sendable {
        package var rowID: Int64
        package var uuid: String?

        package init(rowID: Int64, uuid: String?) {
            self.rowID = rowID
            self.uuid = uuid
        }
    }

    /// The source a create names; checked before anything is read.
    package static func sourceID(creating patch: SpeciesSourcePatch) throws -> Int {
        guard case .value(let sourceId) = patch.sourceId else { throw OakError.invalid("source_id", "is required") }
        return sourceId
    }

    /// The new row of `species` (the name it is stored under) from `sourceId`, given whether the source exists and
    /// the row the species already has from it.
    package static func create(
        species: String, sourceId: Int, applying patch: SpeciesSourcePatch, sourceExists: Bool, existing: Existing?, at now: Date
    ) throws -> SpeciesSource {
        guard sourceExists else { throw OakError.unknownReference("source_id", "no source with id \(sourceId) exists") }
        if let existing {
            throw OakError(
                .conflict, "Species '\(species)' already has data from source \(sourceId)",
                details: ["id": .string(existing.uuid ?? ""), "row_id": .number(Double(existing.rowID))])
        }
        var record = SpeciesSource(scientificName: species, sourceId: sourceId, createdAt: now, updatedAt: now)
        record.isPreferred = sourceId == Source.personalObservationID
        try record.apply(patch)
        return record
    }

    /// The row `record` becomes with the body applied.
    package static func update(_ record: SpeciesSource, applying patch: SpeciesSourcePatch, at now: Date) throws -> SpeciesSource {
        var record = record
        try record.apply(patch)
        record.updatedAt = now
        return record
    }
}
