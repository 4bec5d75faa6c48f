import Foundation
import OakModels
import OakStore
import Testing

/// The rule of a species' data from a source (`SpeciesSourceWrite`), over facts given as a backend would read them.
@Suite("Species-source write rule")
struct SpeciesSourceWriteTests {
    private let now = Date(timeIntervalSince1970: 1_767_268_800)

    private func patch(source: Int? = nil, leaves: String? = nil, preferred: Bool? = nil) -> SpeciesSourcePatch {
        var patch = SpeciesSourcePatch()
        if let source { patch.sourceId = .value(source) }
        if let leaves { patch.leaves = .value(leaves) }
        if let preferred { patch.isPreferred = .value(preferred) }
        return patch
    }

    private func create(_ patch: SpeciesSourcePatch, source: Int = 1, sourceExists: Bool = true, existing: SpeciesSourceWrite.Existing? = nil)
        throws -> SpeciesSource
    {
        try SpeciesSourceWrite.create(species: "alba", sourceId: source, applying: patch, sourceExists: sourceExists, existing: existing, at: now)
    }

    @Test("a create that names no source is a 400 naming source_id")
    func sourceRequired() throws {
        let error = oakError { try SpeciesSourceWrite.sourceID(creating: patch()) }
        #expect(error?.code == .validationError)
        #expect(fields(of: error) == ["source_id"])
        #expect(try SpeciesSourceWrite.sourceID(creating: patch(source: 2)) == 2)
    }

    @Test("an unknown source is a 400 naming source_id, before a row already there")
    func unknownSource() {
        let error = oakError { try create(patch(), source: 9, sourceExists: false, existing: .init(rowID: 5, uuid: "u")) }
        #expect(error?.code == .validationError)
        #expect(error?.fieldErrors.first?.message == "no source with id 9 exists")
    }

    @Test("a species with data from the source already is a 409 naming that row's uuid and row id")
    func rowThere() {
        let error = oakError { try create(patch(), existing: .init(rowID: 5, uuid: "the-uuid")) }
        #expect(error?.code == .conflict)
        #expect(error?.message == "Species 'alba' already has data from source 1")
        #expect(error?.details?["id"] == .string("the-uuid"))
        #expect(error?.details?["row_id"] == .number(5))
        #expect(oakError { try create(patch(), existing: .init(rowID: 6, uuid: nil)) }?.details?["id"] == .string(""))
    }

    @Test("the new row: the species as stored, the body applied, made now; a personal observation is preferred unless the body says not")
    func newRow() throws {
        let row = try create(patch(leaves: "lobed"))
        #expect(row.scientificName == "alba" && row.sourceId == 1 && row.leaves == "lobed")
        #expect(!row.isPreferred)
        #expect(row.createdAt == now && row.updatedAt == now)
        #expect(try create(patch(), source: Source.personalObservationID).isPreferred)
        #expect(try !create(patch(preferred: false), source: Source.personalObservationID).isPreferred)
    }

    @Test("an invalid body is a 400 naming the column, checked after the source and the row there")
    func invalidBody() {
        let long = String(repeating: "x", count: FieldLimits.longText + 1)
        #expect(fields(of: oakError { try create(patch(leaves: long)) }) == ["leaves"])
        #expect(oakError { try create(patch(leaves: long), existing: .init(rowID: 1, uuid: "u")) }?.code == .conflict)
    }

    @Test("an update applies the body and is timed now; the row keeps its identity and creation")
    func update() throws {
        let stored = SpeciesSource(id: 3, scientificName: "alba", sourceId: 1, leaves: "lobed", createdAt: .distantPast, updatedAt: .distantPast)
        let updated = try SpeciesSourceWrite.update(stored, applying: patch(leaves: "entire"), at: now)
        #expect(updated.id == 3 && updated.uuid == stored.uuid && updated.createdAt == .distantPast)
        #expect(updated.leaves == "entire" && updated.updatedAt == now)
    }
}
