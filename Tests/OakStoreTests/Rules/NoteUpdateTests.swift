import Foundation
import OakModels
import OakStore
import Testing

/// The rule of a note's update (`NoteUpdate`) and delete (`NoteDelete`), over facts given as a backend would read them.
@Suite("Note update and delete rules")
struct NoteUpdateTests {
    private let id = UUID(uuidString: "6A5B4C3D-2E1F-4A0B-9C8D-7E6F5A4B3C2D")!
    private let stored = Date(timeIntervalSince1970: 1_767_268_800)
    private let now = Date(timeIntervalSince1970: 1_767_272_400)

    private var current: Note {
        Note(id: id, scientificName: "alba", fields: NoteFields(leaf: "lobed"), createdAt: stored, updatedAt: stored, version: 7)
    }

    private var row: SpeciesSource {
        var row = SpeciesSource(
            id: 12, uuid: id, scientificName: "alba", sourceId: Source.personalObservationID, leaves: "lobed", isPreferred: true,
            createdAt: stored, updatedAt: stored)
        row.fieldTimes = [:]
        return row
    }

    private func input(leaf: String? = "entire", species: String? = nil, source: Int? = nil) throws -> NoteInput {
        var patch = NoteFieldsPatch()
        if let leaf { try patch.set("leaf", to: leaf) }
        return NoteInput(scientificName: species, sourceId: source, fields: patch)
    }

    private func decide(
        _ input: NoteInput, expectedVersion: Int64? = nil, storedName: String? = nil, now: Date? = nil
    ) throws -> NoteUpdate {
        try NoteUpdate.decide(input, expectedVersion: expectedVersion, current: current, row: row, storedName: storedName, now: now ?? self.now)
    }

    @Test("an update writes the row with the new fields, the changed field timed now and the others at their old time")
    func save() throws {
        guard case .save(let record) = try decide(try input()) else {
            Issue.record("a changed field is saved")
            return
        }
        #expect(record.id == 12 && record.uuid == id)
        #expect(record.leaves == "entire")
        #expect(record.updatedAt == now)
        let times = TimedFields(fields: NoteFields(record), fieldTimes: record.fieldTimes, writtenAt: record.updatedAt)
        #expect(times.time(of: .leaf) == now)
        #expect(times.time(of: .bark) == stored)
    }

    @Test("with a clock behind the stored version, the update is timed a tick after it, never before")
    func slowClock() throws {
        guard case .save(let record) = try decide(try input(), now: stored.addingTimeInterval(-60)) else {
            Issue.record("a changed field is saved")
            return
        }
        #expect(record.updatedAt == WireTime.milliseconds(stored.addingTimeInterval(SyncRules.tick)))
    }

    @Test("an update that changes nothing is not a new version")
    func unchanged() throws {
        #expect(try decide(try input(leaf: "lobed")) == .unchanged)
        #expect(try decide(try input(leaf: nil), expectedVersion: 7, storedName: "alba", now: now) == .unchanged)
    }

    @Test("invalid fields are a 400 naming the note's field, even for a stale version")
    func invalidFieldsFirst() throws {
        let error = oakError { try decide(try input(leaf: String(repeating: "x", count: FieldLimits.longText + 1)), expectedVersion: 3) }
        #expect(error?.code == .validationError)
        #expect(fields(of: error) == ["fields.leaf"])
    }

    @Test("an If-Match naming another version is a 412 carrying the current one, before a species or source conflict")
    func staleVersion() throws {
        let error = oakError { try decide(try input(species: "rubra", source: 1), expectedVersion: 6, storedName: "rubra") }
        #expect(error?.code == .preconditionFailed)
        #expect(error?.message == "The note has changed since version 6; it is at version 7")
        #expect(error?.details?["version"] == .number(7))
        #expect(try decide(try input(), expectedVersion: 7) != .unchanged)
    }

    @Test("a body naming another species is a 409 naming scientificName; the same species under another spelling passes")
    func speciesCannotChange() throws {
        let error = oakError { try decide(try input(species: "rubra"), storedName: "rubra") }
        #expect(error?.code == .conflict)
        #expect(fields(of: error) == ["scientificName"])
        #expect(error?.fieldErrors.first?.message == "a note's species cannot change; create a new note instead")
        #expect(try decide(try input(species: "Quercus alba"), storedName: "alba") != .unchanged)
    }

    @Test("a body naming another source is a 409 naming sourceId; its own source passes")
    func sourceCannotChange() throws {
        let error = oakError { try decide(try input(source: 1)) }
        #expect(error?.code == .conflict)
        #expect(fields(of: error) == ["sourceId"])
        #expect(error?.fieldErrors.first?.message == "a note's source cannot change")
        #expect(try decide(try input(source: Source.personalObservationID)) != .unchanged)
    }

    @Test("a pushed update's row holds the merge's fields and times")
    func pushedRow() throws {
        let merged = TimedFields(fields: NoteFields(leaf: "entire", bark: "scaly"), writtenAt: now)
        let record = try NoteUpdate.row(row, writing: merged)
        #expect(record.leaves == "entire" && record.bark == "scaly")
        #expect(record.updatedAt == now)
        #expect(record.fieldTimes == merged.fieldTimes)
    }

    @Test("a delete is timed now, or a tick after the version it deletes; an If-Match naming another version is a 412")
    func delete() throws {
        #expect(try NoteDelete.time(deleting: current, expectedVersion: 7, now: now) == now)
        #expect(
            try NoteDelete.time(deleting: current, expectedVersion: nil, now: stored)
                == WireTime.milliseconds(stored.addingTimeInterval(SyncRules.tick)))
        let error = oakError { try NoteDelete.time(deleting: current, expectedVersion: 2, now: now) }
        #expect(error?.code == .preconditionFailed)
    }
}
