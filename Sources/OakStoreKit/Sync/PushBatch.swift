import Foundation
import NIOCore
import OakModels
import OakStore

/// What a push batch reads once for all its changes instead of once per change: the receipts of changes seen
/// before (by digest), and the stored notes and tombstones of the ids it names. A note a change of the batch
/// may have written is read again when a later change names it (`state(of:)` answers nil). The batch's own
/// receipts are kept for changes repeated in it and written together at its end. Each backend fills it with
/// its queries (`receiptsQuery`, `tombstonesQuery`, its note select), carries out the changes and answers each
/// (`answer`). An upsert stored is answered with the note as stored: those answers are read together, in one
/// query for all the upserts stored since the last (`awaitAnswer`, `answerAwaited`), before a later change
/// names one of their notes and at the batch's end.
package struct PushBatch: Sendable {
    /// The changes, in order.
    package let changes: [PushChange]
    /// The receipt digest of each change of the batch, in order: computed once, for the query and the changes.
    package let digests: [String]
    /// The answer to each change, in order, once it has one.
    private var answers: [Data?]
    /// The changes stored whose answers are still to be read, by note id (`wireString`): their positions.
    private var awaiting: [String: Int] = [:]
    private var receipts: [String: String] = [:]
    private var notes: [UUID: Note] = [:]
    private var tombstones: [UUID: NoteTombstone] = [:]
    /// The species the batch's notes name that exist, by the name they are stored under.
    private var species: Set<String> = []
    /// Each species name the batch's notes give, with the names it may be stored under (`Species.storedSpellings`),
    /// worked out once per name rather than once per use.
    private let spellings: [String: [String]]
    private var written: Set<UUID> = []
    /// The receipts recorded by this batch, as `[digest, result]` pairs.
    package private(set) var newReceipts: [[String]] = []

    /// Refuses a push of more changes than one may carry (`PushRequest.maxChanges`): 413, before anything is read.
    package static func checkSize(of changes: [PushChange]) throws {
        guard changes.count <= PushRequest.maxChanges else {
            throw OakError(.payloadTooLarge, "A push may carry at most \(PushRequest.maxChanges) changes; send smaller batches")
        }
    }

    /// `history`: the database the push's cursor names (`PushReceipts.digest`).
    package init(_ changes: [PushChange], history: String?) {
        self.changes = changes
        digests = changes.map { PushReceipts.digest(of: $0, history: history) }
        answers = Array(repeating: nil, count: changes.count)
        var spellings: [String: [String]] = [:]
        for case let name? in changes.lazy.map(\.note?.scientificName) where spellings[name] == nil {
            spellings[name] = Species.storedSpellings(of: name)
        }
        self.spellings = spellings
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

    /// The tombstones of the notes among `elements`, in the backend's change log (`log`): `entity_key, seq,
    /// deleted_at`.
    package static func tombstonesQuery(elements: String, _ log: NoteLog) -> String {
        """
        SELECT c.entity_key, c.seq, COALESCE(c.deleted_at, c.changed_at) AS deleted_at FROM change_log c
        WHERE c.entity = 'notes' AND c.op = 'delete' AND c.entity_key IN (\(elements)) AND \(log.keyedEntry)
        """
    }

    /// The names the batch's notes may be stored under (each name's `Species.storedSpellings`), each once, in no
    /// particular order (the queries look them up as a set; sorting them cost more than the lookup).
    package var speciesNames: [String] {
        Array(Set(spellings.values.joined()))
    }

    /// `speciesNames` as a JSON array (the parameter of `speciesQuery`).
    package var speciesNamesJSON: String {
        ColumnCoding.json(speciesNames)
    }

    /// The species among `elements`: `scientific_name`.
    package static func speciesQuery(elements: String) -> String {
        "SELECT scientific_name FROM oak_entries WHERE scientific_name IN (\(elements))"
    }

    /// Takes a row of `speciesQuery`.
    package mutating func addSpecies(_ row: some StoredRow) {
        if let name = row.text("scientific_name") { addSpecies(named: name) }
    }

    /// Takes a species that exists, by the name it is stored under.
    package mutating func addSpecies(named name: String) {
        species.insert(name)
    }

    /// The names a species a change of the batch names may be stored under (`Species.storedSpellings`).
    package func storedSpellings(of name: String) -> [String] {
        spellings[name] ?? Species.storedSpellings(of: name)
    }

    /// The name a species a change of the batch names is stored under, or nil when there is none: the first
    /// of its stored spellings that is stored (as the backends' `existingName` looks a name up).
    package func existingSpeciesName(_ name: String) -> String? {
        storedSpellings(of: name).first(where: species.contains)
    }

    /// The name a note's species is kept under for comparison with a stored note: the existing species' name,
    /// else the name normalized (as the backends' `storedName` does).
    package func storedSpeciesName(_ name: String) -> String {
        existingSpeciesName(name) ?? Species.normalizedName(name)
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
        guard let key = row.text("entity_key"), let id = UUID(wireString: key) else { return }
        tombstones[id] = NoteTombstone(row: row)
    }

    /// The note as stored, or when there is none its tombstone; nil when a change of the batch may have
    /// written the note since, so the backend reads it again.
    package func state(of id: UUID) -> (note: Note?, tombstone: NoteTombstone?)? {
        guard !written.contains(id) else { return nil }
        return (notes[id], notes[id] == nil ? tombstones[id] : nil)
    }

    /// Answers the change at `index` when it was seen before (the same digest, in this batch or an earlier
    /// one): then it changes nothing. The answer is the one it got then while the note is still at the version
    /// that answer gave. Once the note has moved on, that answer would tell of a state that is gone (the same
    /// change may even come from another device: a delete each re-sends to a restored server), so the change
    /// is answered `stale` with the note as it stands now, or its tombstone.
    package mutating func answerIfSeen(_ index: Int) throws -> Bool {
        guard let recorded = receipts[digests[index]] else { return false }
        let change = changes[index]
        if let state = state(of: change.id), let now = state.note?.version ?? state.tombstone?.version,
            Self.recordedVersion(recorded) != now
        {
            let result = state.note.map { PushResult(id: change.id, status: .stale, version: $0.version, note: $0) }
            answers[index] = try WireJSON.syncEncoder.encode(result ?? state.tombstone!.result(of: change, .stale))
            return true
        }
        answers[index] = Data(recorded.utf8)
        return true
    }

    /// The note version a recorded answer gave.
    private static func recordedVersion(_ recorded: String) -> Int64? {
        struct Recorded: Decodable { var version: Int64? }
        return try? JSONDecoder().decode(Recorded.self, from: Data(recorded.utf8)).version
    }

    /// Answers the change at `index` with the result the push rule gave. It is recorded unless it is a
    /// rejection: that changed nothing, and the same change re-sent is evaluated afresh (it may pass once its
    /// cause is fixed).
    package mutating func answer(_ index: Int, with result: PushResult) throws {
        let encoded = try WireJSON.syncEncoder.encode(result)
        if result.status != .rejected { record(encoded, for: index) }
        answers[index] = encoded
    }

    /// The change at `index` stored its note: it is answered with the note as stored (`answerAwaited`).
    package mutating func awaitAnswer(_ index: Int) {
        awaiting[changes[index].id.wireString] = index
        written.insert(changes[index].id)
    }

    /// Whether a change stored earlier in the batch named this note and still awaits its answer: it must be
    /// answered before another change reads or writes the note.
    package func awaitsAnswer(for id: UUID) -> Bool {
        awaiting[id.wireString] != nil
    }

    /// The ids of the notes whose answers are awaited, as a JSON array (the parameter of the backend's query).
    package var awaitedIDsJSON: String? {
        awaiting.isEmpty ? nil : ColumnCoding.json(awaiting.keys.sorted())
    }

    /// The id of the change awaiting an answer for the note with this key (`entity_key`).
    package func awaitedID(key: String) -> UUID? {
        awaiting[key].map { changes[$0].id }
    }

    /// Answers the change awaiting the note with this key, with its result as the backend wrote it
    /// (`appliedPushResult`). Once the backend's query is read, `finishAwaited` checks none is left.
    package mutating func answerAwaited(key: String, encoded: Data) {
        guard let index = awaiting.removeValue(forKey: key) else { return }
        record(encoded, for: index)
        answers[index] = encoded
    }

    /// Fails when a note stored by the batch was not found for its answer.
    package func finishAwaited() throws {
        if let key = awaiting.keys.first { throw OakError.notFound("Note", key) }
    }

    /// The push's response body: `{"results":[...]}`, the answers in the changes' order.
    package func responseBody() -> ByteBuffer {
        var json = JSONOutput(capacity: 16 + answers.reduce(0) { $0 + ($1?.count ?? 0) })
        json.raw(#"{"results":["#)
        for (index, answer) in answers.enumerated() {
            if index > 0 { json.raw(",") }
            json.raw(answer ?? Data())
        }
        json.raw("]}")
        return json.takeByteBuffer()
    }

    /// Records the result of a change that was carried out: its note may have changed, and the same change
    /// re-sent, in this batch or later, gets this result.
    private mutating func record(_ encoded: Data, for index: Int) {
        let result = String(decoding: encoded, as: UTF8.self)
        written.insert(changes[index].id)
        receipts[digests[index]] = result
        newReceipts.append([digests[index], result])
    }
}

extension NoteTombstone {
    /// A tombstone from a row of `PushBatch.tombstonesQuery`.
    package init(row: some StoredRow) {
        self.init(version: row.integer("seq") ?? 0, deletedAt: ColumnCoding.date(row.text("deleted_at")))
    }
}
