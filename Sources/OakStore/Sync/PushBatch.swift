import Foundation
import OakModels

/// What a push batch reads once for all its changes instead of once per change: the receipts of changes seen
/// before (by digest), and the stored notes and tombstones of the ids it names. A note a change of the batch
/// may have written is read again when a later change names it (`state(of:)` answers nil). The batch's own
/// receipts are kept for changes repeated in it and written together at its end. Each backend fills it with
/// its queries (`receiptsQuery`, `tombstonesQuery`, its note select) and carries out the changes.
package struct PushBatch: Sendable {
    /// The receipt digest of each change of the batch, in order: computed once, for the query and the changes.
    package let digests: [String]
    package private(set) var receipts: [String: String] = [:]
    private var notes: [UUID: Note] = [:]
    private var tombstones: [UUID: NoteTombstone] = [:]
    private var written: Set<UUID> = []
    /// The receipts recorded by this batch, as `[digest, result]` pairs.
    package private(set) var newReceipts: [[String]] = []

    package init(_ changes: [PushChange]) {
        digests = changes.map { PushReceipts.digest(of: $0) }
    }

    /// The digests as a JSON array (the parameter of `receiptsQuery`).
    package var digestsJSON: String {
        ColumnCoding.json(digests)
    }

    /// The ids the batch names, lowercased, as a JSON array (the parameter of the note and tombstone queries).
    package static func ids(of changes: [PushChange]) -> String {
        ColumnCoding.json(Set(changes.map { $0.id.uuidString.lowercased() }).sorted())
    }

    /// The receipts among `elements` (the JSON array's elements, in the backend's dialect): `digest, result`.
    package static func receiptsQuery(elements: String) -> String {
        "SELECT digest, result FROM sync_receipts WHERE digest IN (\(elements))"
    }

    /// The tombstones of the notes among `elements`: `entity_key, seq, deleted_at`.
    package static func tombstonesQuery(elements: String) -> String {
        """
        SELECT entity_key, seq, COALESCE(deleted_at, changed_at) AS deleted_at FROM change_log
        WHERE entity = 'notes' AND op = 'delete' AND entity_key IN (\(elements))
        """
    }

    /// Takes a row of `receiptsQuery`.
    package mutating func addReceipt(_ row: some StoredRow) {
        if let digest = row.text("digest"), let result = row.text("result") { receipts[digest] = result }
    }

    /// Takes a stored note the batch names.
    package mutating func addNote(_ note: Note) {
        notes[note.id] = note
    }

    /// Takes a row of `tombstonesQuery`.
    package mutating func addTombstone(_ row: some StoredRow) {
        guard let key = row.text("entity_key"), let id = UUID(uuidString: key) else { return }
        tombstones[id] = NoteTombstone(version: row.integer("seq") ?? 0, deletedAt: ColumnCoding.date(row.text("deleted_at")))
    }

    /// The note as stored, or when there is none its tombstone; nil when a change of the batch may have
    /// written the note since, so the backend reads it again.
    package func state(of id: UUID) -> (note: Note?, tombstone: NoteTombstone?)? {
        guard !written.contains(id) else { return nil }
        return (notes[id], notes[id] == nil ? tombstones[id] : nil)
    }

    /// Records the result of a change that was carried out (not a rejection): its note may have changed, and
    /// the same change re-sent, in this batch or later, gets this result.
    package mutating func record(_ result: String, for change: PushChange, digest: String) {
        written.insert(change.id)
        receipts[digest] = result
        newReceipts.append([digest, result])
    }
}
