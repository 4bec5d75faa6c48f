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
    private var receipts: [String: String] = [:]
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
        ColumnCoding.json(Set(changes.map { $0.id.wireString }).sorted())
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

    /// The answer recorded for a change seen before (the same digest, in this batch or an earlier one): it is
    /// answered again and changes nothing.
    package func recordedAnswer(digest: String) -> Data? {
        receipts[digest].map { Data($0.utf8) }
    }

    /// Answers a change with the result the push rule gave. It is recorded unless it is a rejection: that
    /// changed nothing, and the same change re-sent is evaluated afresh (it may pass once its cause is fixed).
    package mutating func answer(_ result: PushResult, for change: PushChange, digest: String) throws -> Data {
        let encoded = try WireJSON.encoder.encode(result)
        if result.status != .rejected { record(encoded, for: change, digest: digest) }
        return encoded
    }

    /// Answers an upsert that was stored, with its result as the backend wrote it (`appliedPushResult`).
    package mutating func answer(stored encoded: Data, for change: PushChange, digest: String) -> Data {
        record(encoded, for: change, digest: digest)
        return encoded
    }

    /// Records the result of a change that was carried out: its note may have changed, and the same change
    /// re-sent, in this batch or later, gets this result.
    private mutating func record(_ encoded: Data, for change: PushChange, digest: String) {
        let result = String(decoding: encoded, as: UTF8.self)
        written.insert(change.id)
        receipts[digest] = result
        newReceipts.append([digest, result])
    }
}
