import Foundation
import OakModels
import OakStore
import OakStoreKit
import Testing

/// The push rule every backend carries out (`PushPlan`), decided without a database.
@Suite("Push plan")
struct PushPlanTests {
    private let id = UUID(uuidString: "0B7E2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D")!
    private let stored = Date(timeIntervalSince1970: 1_767_268_800)
    private let now = Date(timeIntervalSince1970: 1_767_272_400)

    private func note(version: Int64 = 7, leaf: String = "lobed", at time: Date? = nil) -> Note {
        Note(
            id: id, scientificName: "alba", fields: NoteFields(leaf: leaf), sourceId: Source.personalObservationID,
            createdAt: stored, updatedAt: time ?? stored, version: version)
    }

    private func change(
        _ op: SyncOperation = .upsert, base: Int64? = 7, at time: Date, species: String = "alba", source: Int? = nil, leaf: String = "entire"
    ) -> PushChange {
        PushChange(
            id: id, op: op, baseVersion: base, updatedAt: time,
            note: op == .delete ? nil : PushedNote(scientificName: species, sourceId: source, fields: NoteFields(leaf: leaf)))
    }

    /// A note whose every field was written at `time`, `leaf` its only text.
    private func whole(_ leaf: String, at time: Date) -> TimedFields {
        TimedFields(fields: NoteFields(leaf: leaf), writtenAt: time)
    }

    /// A note whose leaf was written at `leafTime` and its other (empty) fields at `others`.
    private func leafWritten(_ leaf: String, at leafTime: Date, others: Date) -> TimedFields {
        let times = Dictionary(uniqueKeysWithValues: NoteFields.Field.allCases.filter { $0 != .leaf }.map { ($0, others) })
        return TimedFields(fields: NoteFields(leaf: leaf), fieldTimes: times, writtenAt: leafTime)
    }

    private func plan(_ change: PushChange, current: Note?, tombstone: NoteTombstone? = nil) throws -> PushPlan {
        try PushPlan.plan(for: change, current: current, tombstone: tombstone, now: now, storedName: { $0 == "Quercus alba" ? "alba" : $0 })
    }

    @Test("an edit based on the stored version fast-forwards; with a slow clock its time is a tick after that version's, never earlier")
    func fastForward() throws {
        let earlier = stored.addingTimeInterval(-60)
        let tick = WireTime.milliseconds(stored.addingTimeInterval(SyncRules.tick))
        #expect(try plan(change(at: earlier), current: note()) == .update(leafWritten("entire", at: tick, others: stored)))
        let later = stored.addingTimeInterval(5)
        #expect(try plan(change(at: later), current: note()) == .update(whole("entire", at: later)))
        #expect(try plan(change(.delete, at: earlier), current: note()) == .delete(note(), at: tick))
        // The same fields from a slow clock leave the note as it is: its time never moves back.
        #expect(try plan(change(at: earlier, leaf: "lobed"), current: note()) == .unchanged)
    }

    @Test("slow clock: an edit made after v1 on a clock a minute behind still beats an edit made before v1 by a device that never saw it")
    func slowClockKeepsHistoryForward() throws {
        // v1 written at +100 s; A (60 s slow) edits on v1 at "+40"; B edits from the version before v1 at +70.
        let v1 = note(version: 8, leaf: "v1", at: stored.addingTimeInterval(100))
        guard case .update(let written) = try plan(change(base: 8, at: stored.addingTimeInterval(40), leaf: "A"), current: v1) else {
            Issue.record("A's edit fast-forwards")
            return
        }
        let recorded = written.writtenAt
        #expect(recorded > v1.updatedAt)
        let afterA = note(version: 9, leaf: "A", at: recorded)
        let b = try plan(change(base: 7, at: stored.addingTimeInterval(70), leaf: "B"), current: afterA)
        #expect(b == .answer(PushResult(id: id, status: .stale, version: 9, note: afterA)))
    }

    @Test("a concurrent edit wins by its later time and loses by an earlier one")
    func lastWriteWins() throws {
        let later = stored.addingTimeInterval(60)
        #expect(try plan(change(base: 5, at: later), current: note()) == .update(whole("entire", at: later)))
        let result = try plan(change(base: 5, at: stored.addingTimeInterval(-60)), current: note())
        #expect(result == .answer(PushResult(id: id, status: .stale, version: 7, note: note())))
    }

    @Test("a timestamp too far in the future is recorded as the server's time")
    func clockSkewClamp() throws {
        let future = now.addingTimeInterval(SyncRules.allowedClockSkew + 1)
        #expect(try plan(change(base: 5, at: future), current: note()) == .update(whole("entire", at: now)))
    }

    @Test("the same fields at the same time change nothing")
    func unchanged() throws {
        #expect(try plan(change(at: stored, leaf: "lobed"), current: note()) == .unchanged)
    }

    @Test("a note's species or source cannot change; a name the store knows under another spelling is the same species")
    func speciesAndSourceAreFixed() throws {
        #expect(try plan(change(at: stored.addingTimeInterval(1), species: "Quercus alba"), current: note()) != .unchanged)
        for moved in [change(at: now, species: "rubra"), change(at: now, source: 1)] {
            guard case .answer(let result) = try plan(moved, current: note()) else {
                Issue.record("a moved note must be answered")
                continue
            }
            #expect(result.status == .rejected)
            #expect(result.error?.fieldErrors.map(\.field) == ["note.scientificName"])
        }
    }

    @Test("an upsert without a note is rejected")
    func upsertNeedsANote() throws {
        let bare = PushChange(id: id, op: .upsert, baseVersion: nil, updatedAt: now, note: nil)
        guard case .answer(let result) = try plan(bare, current: nil) else {
            Issue.record("expected an answer")
            return
        }
        #expect(result.status == .rejected)
    }

    @Test("a new note is inserted; after a delete, only a later edit or one based on the tombstone brings it back")
    func tombstones() throws {
        let insert = PushPlan.insert(scientificName: "alba", sourceId: nil, whole("entire", at: stored))
        #expect(try plan(change(base: nil, at: stored), current: nil) == insert)
        let tombstone = NoteTombstone(version: 9, deletedAt: stored.addingTimeInterval(30))
        #expect(
            try plan(change(base: nil, at: stored), current: nil, tombstone: tombstone)
                == .answer(PushResult(id: id, status: .stale, version: 9, deletedAt: tombstone.deletedAt)))
        // Based on the tombstone: brought back, a tick after the delete it was made on.
        #expect(
            try plan(change(base: 9, at: stored), current: nil, tombstone: tombstone)
                == .insert(scientificName: "alba", sourceId: nil, whole("entire", at: stored.addingTimeInterval(30 + SyncRules.tick))))
        let later = stored.addingTimeInterval(60)
        #expect(
            try plan(change(base: nil, at: later), current: nil, tombstone: tombstone)
                == .insert(scientificName: "alba", sourceId: nil, whole("entire", at: later)))
    }

    @Test("a delete fast-forwards or wins by time; a delete of a deleted note is applied with its tombstone's version, moving it if later")
    func deletes() throws {
        #expect(
            try plan(change(.delete, at: stored.addingTimeInterval(-60)), current: note())
                == .delete(note(), at: WireTime.milliseconds(stored.addingTimeInterval(SyncRules.tick))))
        #expect(try plan(change(.delete, base: 3, at: now), current: note()) == .delete(note(), at: now))
        #expect(
            try plan(change(.delete, base: 3, at: stored.addingTimeInterval(-1)), current: note())
                == .answer(PushResult(id: id, status: .stale, version: 7, note: note())))
        let tombstone = NoteTombstone(version: 12, deletedAt: stored)
        #expect(try plan(change(.delete, at: now), current: nil, tombstone: tombstone) == .recordTombstone(at: now))
        #expect(
            try plan(change(.delete, at: stored.addingTimeInterval(-1)), current: nil, tombstone: tombstone)
                == .answer(PushResult(id: id, status: .applied, version: 12, deletedAt: stored)))
    }

    @Test("a delete of a note the server never had leaves a tombstone, so the create it follows, arriving late, loses")
    func deleteBeforeCreate() throws {
        #expect(try plan(change(.delete, at: now), current: nil) == .recordTombstone(at: now))
        let tombstone = NoteTombstone(version: 13, deletedAt: now)
        let lateCreate = try plan(change(base: nil, at: now.addingTimeInterval(-10)), current: nil, tombstone: tombstone)
        #expect(lateCreate == .answer(PushResult(id: id, status: .stale, version: 13, deletedAt: now)))
    }

    @Test("a later delete of a deleted note moves its tombstone to a new version, so an edit based on the old tombstone does not fast-forward")
    func laterDeleteIsANewVersion() throws {
        // A deletes at +10 (tombstone version 12); B deletes at +30: a new version.
        let first = NoteTombstone(version: 12, deletedAt: stored.addingTimeInterval(10))
        #expect(
            try plan(change(.delete, at: stored.addingTimeInterval(30)), current: nil, tombstone: first) == .recordTombstone(at: stored.addingTimeInterval(30)))
        // A's revival at +20, based on version 12, meets the tombstone at version 14: it is weighed by time and loses.
        let second = NoteTombstone(version: 14, deletedAt: stored.addingTimeInterval(30))
        let revival = try plan(change(base: 12, at: stored.addingTimeInterval(20)), current: nil, tombstone: second)
        #expect(revival == .answer(PushResult(id: id, status: .stale, version: 14, deletedAt: second.deletedAt)))
    }

    @Test("per field: a change with field times keeps the stored fields it did not write since, and a late delete clears only what was written before it")
    func perField() throws {
        // Stored: leaf "lobed" at `stored`. A device edited bark at +20, its leaf still from `stored - 100`.
        var body = PushedNote(scientificName: "alba", fields: NoteFields(leaf: "old leaf", bark: "scaly"))
        body.fieldTimes = Dictionary(uniqueKeysWithValues: NoteFields.Field.allCases.filter { $0 != .bark }.map { ($0, stored.addingTimeInterval(-100)) })
        let change = PushChange(id: id, op: .upsert, baseVersion: 5, updatedAt: stored.addingTimeInterval(20), note: body)
        guard case .update(let merged) = try plan(change, current: note()) else {
            Issue.record("the bark edit is taken")
            return
        }
        #expect(merged.fields == NoteFields(leaf: "lobed", bark: "scaly"))
        // A delete made at +10, arriving after: the note stays (bark was written after it), its leaf is cleared.
        let current = Note(
            id: id, scientificName: "alba", fields: merged.fields, createdAt: stored, updatedAt: merged.writtenAt, version: 8,
            fieldTimes: merged.fieldTimes)
        guard case .update(let left) = try plan(self.change(.delete, base: 3, at: stored.addingTimeInterval(10)), current: current) else {
            Issue.record("the delete clears what was written before it")
            return
        }
        #expect(left.fields == NoteFields(bark: "scaly"))
    }

    @Test("bad fields and unknown references refuse the change alone; other errors fail the push")
    func rejections() {
        let change = change(at: now)
        #expect(PushPlan.rejection(of: change, .invalid("note.leaf", "is too long")) != nil)
        #expect(PushPlan.rejection(of: change, .notFound("Species", "nope")) != nil)
        #expect(PushPlan.rejection(of: change, OakError(.conflict, "taken")) == nil)
    }

    @Test("a new note that lost its species and source to another device's note is answered stale with that note")
    func lostToAnotherNote() throws {
        let winner = note(version: 9, leaf: "theirs")
        let conflict = OakError(.conflict, "Species 'alba' already has a note from source 3", details: ["id": .string(id.wireString)])
        #expect(PushPlan.winnerID(of: conflict) == id)
        #expect(PushPlan.winnerID(of: OakError(.conflict, "Taxon section 'Lobatae' already exists")) == nil)
        #expect(PushPlan.winnerID(of: OakError.invalid("sourceId", "no source with id 9 exists")) == nil)
        let result = PushPlan.lost(change(at: now), to: winner)
        #expect(result == PushResult(id: id, status: .stale, version: 9, note: winner))
    }

    @Test("a push of more changes than one may carry is a 413; a full one passes")
    func batchSize() throws {
        let full = Array(repeating: change(at: now), count: PushRequest.maxChanges)
        try PushBatch.checkSize(of: full)
        let error = oakError { try PushBatch.checkSize(of: full + [change(at: now)]) }
        #expect(error?.code == .payloadTooLarge)
        #expect(error?.message == "A push may carry at most \(PushRequest.maxChanges) changes; send smaller batches")
    }
}
