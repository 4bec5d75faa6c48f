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

    /// A tombstone from a row of `PushBatch.tombstonesQuery`.
    package init(row: some StoredRow) {
        self.init(version: row.integer("seq") ?? 0, deletedAt: ColumnCoding.date(row.text("deleted_at")))
    }
}

/// What a pushed note change comes to, decided from what the server holds: the rule of push, written once
/// for every backend, which carries the plan out in the push's transaction.
///
/// - A change made on the version the server holds (its `baseVersion` is that version) fast-forwards; its time
///   is recorded as a hybrid logical time, never earlier than that version's (`SyncRules.hybridTime`), so a
///   slow clock cannot order it before what it was made on.
/// - Any other change is weighed by last write wins (`SyncRules.wins`), the device's clock clamped to the
///   server's allowed skew.
/// - A delete always leaves a tombstone, for a note the server never had too (a delete can arrive before the
///   create it follows), and every change to a tombstone is a new version, so no base version taken before
///   it fast-forwards past it.
package enum PushPlan: Equatable, Sendable {
    /// Nothing to write; the change's result.
    case answer(PushResult)
    /// Delete the note's row; its tombstone records the delete at `at`.
    case delete(Note, at: Date)
    /// Record a tombstone at `at` under a new version: for a note the server does not hold, whose delete
    /// is later than its tombstone (an edit made between the two deletes does not bring the note back) or
    /// that it never had (the create it follows may arrive later). Answered as applied, with the new version.
    case recordTombstone(at: Date)
    /// Write `fields` into the existing note, updated at `at`.
    case update(fields: NoteFields, at: Date)
    /// The note already holds this change: answer it as stored.
    case unchanged
    /// Create the note, which must pass the checks of a new note (species, source, one note per pair).
    case insert(scientificName: String, sourceId: Int?, fields: NoteFields, at: Date)

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
                return .answer(PushResult(id: change.id, status: .applied, version: tombstone.version))
            }
            if fastForward(current.version) { return .delete(current, at: SyncRules.hybridTime(time, after: current.updatedAt)) }
            guard SyncRules.wins(time, nil, over: current.updatedAt, current.fields) else { return stale(current) }
            return .delete(current, at: time)

        case .upsert:
            guard let body = change.note else {
                return .answer(PushResult(id: change.id, status: .rejected, error: .invalid("note", "is required for an upsert")))
            }
            guard let current else {
                guard let tombstone else {
                    return .insert(scientificName: body.scientificName, sourceId: body.sourceId, fields: body.fields, at: time)
                }
                if fastForward(tombstone.version) {
                    let at = SyncRules.hybridTime(time, after: tombstone.deletedAt)
                    return .insert(scientificName: body.scientificName, sourceId: body.sourceId, fields: body.fields, at: at)
                }
                guard SyncRules.wins(time, body.fields, over: tombstone.deletedAt, nil) else {
                    return .answer(PushResult(id: change.id, status: .stale, version: tombstone.version))
                }
                return .insert(scientificName: body.scientificName, sourceId: body.sourceId, fields: body.fields, at: time)
            }
            guard try storedName(body.scientificName) == current.scientificName,
                (body.sourceId ?? Source.personalObservationID) == current.sourceId
            else {
                return .answer(rejection(of: change, .invalid("note.scientificName", "a note's species and source cannot change"))!)
            }
            let at: Date
            if fastForward(current.version) {
                // The same fields again change nothing: a fast-forward never moves a note's time back.
                guard body.fields != current.fields || time > current.updatedAt else { return .unchanged }
                at = SyncRules.hybridTime(time, after: current.updatedAt)
            } else {
                guard SyncRules.wins(time, body.fields, over: current.updatedAt, current.fields) else { return stale(current) }
                at = time
            }
            return body.fields != current.fields || at != current.updatedAt ? .update(fields: body.fields, at: at) : .unchanged
        }
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
