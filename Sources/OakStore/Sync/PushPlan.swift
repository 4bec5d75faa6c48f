import Foundation
import OakModels

/// A deleted note's tombstone in the change log: its version and when the delete happened.
package struct NoteTombstone: Equatable, Sendable {
    package var version: Int64
    package var deletedAt: Date

    package init(version: Int64, deletedAt: Date) {
        self.version = version
        self.deletedAt = deletedAt
    }

    /// The result of a delete carried out (`PushPlan.delete`, `.recordTombstone`): the tombstone it left.
    package static func applied(_ change: PushChange, leaving tombstone: NoteTombstone?) -> PushResult {
        tombstone?.result(of: change, .applied) ?? PushResult(id: change.id, status: .applied)
    }

    /// The result of a change that leaves the note deleted: this tombstone's version and time.
    package func result(of change: PushChange, _ status: PushStatus) -> PushResult {
        PushResult(id: change.id, status: status, version: version, deletedAt: deletedAt)
    }
}

/// What a pushed note change comes to, decided from what the server holds: the rule of push, written once
/// for every backend, which carries the plan out in the push's transaction. It is the README's sync rule:
///
/// - Field by field, the value written last wins (`SyncRules.merge`); a change from an older client, which
///   names no field times, wrote every field at its `updatedAt`.
/// - A delete removes the note unless a write was made after it; fields written before it are cleared
///   (`SyncRules.afterDelete`). A delete always leaves a tombstone, for a note the server never had too (a
///   delete can arrive before the create it follows), and every change to a tombstone is a new version.
/// - A delete, or a change that names no field times (an older client's, or a note made anew), made on the
///   version the server holds (its `baseVersion`) is a fast-forward: what it changes is timed after that
///   version at the earliest (`SyncRules.made`), so a slow clock cannot order it before what it was made on.
///   A change with field times carries them from a device that keeps hybrid logical times itself, and is
///   merged as it is (its older fields may be a merge the device made, and keep their own times). Device
///   clocks are clamped to the server's allowed skew.
package enum PushPlan: Equatable, Sendable {
    /// Nothing to write; the change's result.
    case answer(PushResult)
    /// Delete the note's row; its tombstone records the delete at `at`.
    case delete(Note, at: Date)
    /// Record a tombstone at `at` under a new version: for a note the server does not hold, whose delete
    /// is later than its tombstone (an edit made between the two deletes does not bring the note back) or
    /// that it never had (the create it follows may arrive later). Answered as applied, with the new version.
    case recordTombstone(at: Date)
    /// Write the note's fields with their times (the merge of the stored note and the change).
    case update(TimedFields)
    /// The note already holds this change: answer it as stored.
    case unchanged
    /// Create the note, which must pass the checks of a new note (species, source, one note per pair).
    case insert(scientificName: String, sourceId: Int?, TimedFields)

    /// Decides a change against the note as stored (`current`) or, when there is none, its tombstone.
    /// `storedName` gives the name a species is stored under (a pushed name may differ in its hybrid sign).
    package static func plan(
        for change: PushChange, current: Note?, tombstone: NoteTombstone?, now: Date, storedName: (String) throws -> String
    ) throws -> PushPlan {
        let time = SyncRules.recordedTime(of: change.updatedAt, now: now)
        let fastForward = { (version: Int64) in change.baseVersion == version }
        let stale = { (note: Note) in PushPlan.answer(PushResult(id: change.id, status: .stale, version: note.version, note: note)) }

        switch change.op {
        case .delete:
            guard let current else {
                guard let tombstone else { return .recordTombstone(at: time) }
                if time > tombstone.deletedAt { return .recordTombstone(at: time) }
                return .answer(tombstone.result(of: change, .applied))
            }
            let stored = current.timedFields
            let at = fastForward(current.version) ? SyncRules.hybridTime(time, after: stored.writtenAt) : time
            guard let left = SyncRules.afterDelete(at: at, of: stored) else { return .delete(current, at: at) }
            // Written to after the delete: the note stays, without what was written before it.
            return left == stored ? stale(current) : .update(left)

        case .upsert:
            guard let body = change.note else {
                return .answer(PushResult(id: change.id, status: .rejected, error: .invalid("note", "is required for an upsert")))
            }
            var incoming = TimedFields(
                fields: body.fields, fieldTimes: body.fieldTimes.mapValues { SyncRules.recordedTime(of: $0, now: now) }, writtenAt: time)
            let wholeNote = body.fieldTimes.isEmpty
            guard let current else {
                guard let tombstone else { return .insert(scientificName: body.scientificName, sourceId: body.sourceId, incoming) }
                if fastForward(tombstone.version), wholeNote { incoming = SyncRules.made(incoming, on: nil, deletedAt: tombstone.deletedAt) }
                guard let revived = SyncRules.afterDelete(at: tombstone.deletedAt, of: incoming) else {
                    return .answer(tombstone.result(of: change, .stale))
                }
                return .insert(scientificName: body.scientificName, sourceId: body.sourceId, revived)
            }
            guard try storedName(body.scientificName) == current.scientificName,
                (body.sourceId ?? Source.personalObservationID) == current.sourceId
            else {
                return .answer(rejection(of: change, .invalid("note.scientificName", "a note's species and source cannot change"))!)
            }
            let stored = current.timedFields
            if fastForward(current.version), wholeNote { incoming = SyncRules.made(incoming, on: stored) }
            let merged = SyncRules.merge(stored, incoming)
            guard merged == stored else { return .update(merged) }
            // Nothing of the change is newer: the same change again (or the same fields) is answered as stored.
            return fastForward(current.version) || incoming.fields == stored.fields ? .unchanged : stale(current)
        }
    }

    /// The note a pushed new note lost to, when `error` is the conflict of one note per species and source
    /// (`NewNote.checkPlace`): another device created the note for this species and source first.
    package static func winnerID(of error: OakError) -> UUID? {
        guard error.code == .conflict, case .string(let id)? = error.details?["id"] else { return nil }
        return UUID(wireString: id)
    }

    /// The answer to a change whose new note lost to `winner` (`winnerID`): stale, with the server's note.
    package static func lost(_ change: PushChange, to winner: Note) -> PushResult {
        PushResult(id: change.id, status: .stale, version: winner.version, note: winner)
    }

    /// The result of a change whose plan failed with `error`, when that error refuses the change alone (bad
    /// fields, an unknown species or source): it changed nothing, and re-sending it is evaluated afresh.
    /// Nil for other errors, which fail the whole push.
    package static func rejection(of change: PushChange, _ error: OakError) -> PushResult? {
        guard error.code == .validationError || error.code == .notFound else { return nil }
        return PushResult(id: change.id, status: .rejected, error: error)
    }
}

/// What a pushed change comes to in a backend: a result, or an upsert stored (answered with the note as stored).
package enum PushDecision {
    case answer(PushResult)
    case stored
}
