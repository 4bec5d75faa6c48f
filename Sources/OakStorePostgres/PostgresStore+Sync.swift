import Foundation
import NIOCore
import OakModels
import OakStore
import OakStoreKit
import PostgresNIO

extension PostgresStore: SyncRepository {
    public func pull(
        cursor: String?, limit: Int, entities: [SyncEntity], following: (@Sendable (String) -> Void)?
    ) async throws -> PulledPage {
        // One snapshot: the page and the head its cursor reports agree (see `PostgresSchema` for why a
        // change numbered below the head can never commit after it).
        try await snapshot { session in
            let marks = try await Self.historyMarks(session)
            let window = try PullWindow(cursor: cursor, database: marks.database, head: marks.head, compactedThrough: marks.compactedThrough)
            // A snapshot needs no tombstones of deletes made before it started: the client starts from nothing.
            let rows = try await session.rows(
                Self.pageQuery,
                [
                    .integer(window.position.sequence), StoredValue(limit + 1), .text(entities.map(\.rawValue).joined(separator: ",")),
                    .integer(window.snapshotStart ?? -1),
                ])
            let hasMore = rows.count > limit
            let page = rows.prefix(limit).map { PostgresColumns($0) }
            let next = window.next(hasMore: hasMore, lastSequence: page.last?.int(0))
            if hasMore { following?(next.description) }
            var json = JSONOutput(capacity: 64 * 1024 + page.count * 1024)
            json.beginPull()
            try await self.writeChanges(session, page, database: marks.database, into: &json)
            return json.endPull(cursor: next, hasMore: hasMore)
        }
    }

    /// Two: a page's read is PostgreSQL's query and then the server's writing of its JSON, together longer than the
    /// client's parsing, so the database reads one page while the server writes the other.
    public var pullPagesReadAhead: Int { 2 }

    public func push(_ changes: [PushChange], cursor: String?) async throws -> ByteBuffer {
        try PushBatch.checkSize(of: changes)
        let now = self.now
        return try await write { session in
            var history: String?
            if let cursor {
                let marks = try await Self.historyMarks(session)
                history = try PullWindow.sameHistory(cursor, database: marks.database, head: marks.head, field: "cursor").database
            }
            // Each statement is a round trip: what every change of the batch needs is read in one query.
            var (batch, slots) = try await Self.pushBatch(session, changes, history: history)
            var inserts = PushNoteInserts()
            for (index, change) in changes.enumerated() {
                if batch.awaitsAnswer(for: change.id) { try await Self.answerStored(session, &batch, &inserts) }
                try await Self.applyOnce(session, index, now: now, batch: &batch, slots: &slots, inserts: &inserts)
            }
            try await Self.answerStored(session, &batch, &inserts)
            Self.saveReceipts(session, batch)
            return batch.responseBody()
        }
    }

    public func compact(olderThan horizon: Date) async throws -> Int {
        let cutoff = StoredValue(horizon)
        guard try await read({ try await $0.integer(StoreSQL.anythingToCompact(cutoff: "$1"), [cutoff]) }) == 1 else { return 0 }
        return try await write { session in
            let newest = try await session.integer("SELECT MAX(seq) FROM change_log WHERE op = 'delete' AND changed_at < $1", [cutoff])
            try await session.execute("DELETE FROM sync_receipts WHERE created_at < $1", [cutoff])
            guard let newest else { return 0 }
            let removed = try await session.execute("DELETE FROM change_log WHERE op = 'delete' AND seq <= $1", [.integer(newest)])
            try await session.execute(
                """
                INSERT INTO sync_state(key, value) VALUES ('compacted_through', $1::text)
                ON CONFLICT (key) DO UPDATE SET value = GREATEST(sync_state.value::bigint, excluded.value::bigint)::text
                """, [.integer(newest)])
            return removed
        }
    }

    // MARK: Pull

    /// The newest sequence number: it moves on every committed change.
    static func changeLogHead(_ session: PostgresSession) async throws -> Int64 {
        try await session.integer(headQuery) ?? 0
    }

    /// The newest sequence number whose tombstones compaction may have removed.
    static func compactedThrough(_ session: PostgresSession) async throws -> Int64 {
        Int64(try await session.text(compactedThroughQuery) ?? "0") ?? 0
    }

    /// This database's identity, which every cursor carries: the id it was created with, and the object id of
    /// its change log, which `pg_restore` (with `--clean`, or into a new database) and a dump loaded anywhere
    /// give anew. A restored database is so another history: every device's cursor is answered 410.
    static func databaseID(_ session: PostgresSession) async throws -> String {
        try await session.text(databaseIDQuery) ?? "0"
    }

    /// The database's identity, the head and the compaction mark, which every pull and every push with a cursor
    /// checks the cursor against: one statement, so one round trip and one snapshot.
    static func historyMarks(_ session: PostgresSession) async throws -> (database: String, head: Int64, compactedThrough: Int64) {
        let row = try await session.row(
            "SELECT (\(databaseIDQuery)) AS database_id, (\(headQuery)) AS head, (\(compactedThroughQuery)) AS compacted_through")
        return (row?.text("database_id") ?? "0", row?.integer("head") ?? 0, Int64(row?.text("compacted_through") ?? "0") ?? 0)
    }

    static let headQuery = "SELECT seq FROM change_log_head"
    static let compactedThroughQuery = "SELECT value FROM sync_state WHERE key = 'compacted_through'"
    static let databaseIDQuery = "SELECT value || to_hex('change_log'::regclass::oid::bigint) FROM sync_state WHERE key = 'database_id'"

    /// Writes a page of the change log (`pageQuery`'s rows) as `SyncChange`s: notes as the cache holds them or as
    /// `pageNotesQuery` reads them, other records encoded from their models. An upsert whose record is gone by now
    /// is left out (its delete follows later).
    func writeChanges(
        _ session: PostgresSession, _ page: [PostgresColumns], database: String, into json: inout JSONOutput
    ) async throws {
        var keys: [SyncEntity: [String]] = [:]
        var noteEntries: [PulledNoteCache.Entry] = []
        for row in page where row.string(3) == SyncOperation.upsert.rawValue {
            guard let entity = row.string(1).flatMap(SyncEntity.init(rawValue:)) else { continue }
            if entity == .notes {
                noteEntries.append(PulledNoteCache.Entry(sequence: row.int(0), note: row.string(2) ?? "", time: row.string(4) ?? ""))
            } else {
                keys[entity, default: []].append(row.string(2) ?? "")
            }
        }
        var records: [String: Data] = [:]
        for (entity, list) in keys {
            guard let sql = SyncRecords.query(entity, keysIn: "(SELECT jsonb_array_elements_text($1::jsonb))") else { continue }
            for row in try await session.rows(sql, [.text(ColumnCoding.json(list))]) {
                if let record = try SyncRecords.encoded(entity, row, PostgresColumns(row)) { records[record.key] = record.json }
            }
        }
        let notes = try await pageNotes(session, noteEntries, database: database)
        var first = true
        for row in page {
            let sequence = row.int(0)
            let entity = row.string(1) ?? ""
            let key = row.string(2) ?? ""
            let op = row.string(3) ?? ""
            let isUpsert = op == SyncOperation.upsert.rawValue
            let record =
                !isUpsert ? nil : entity == SyncEntity.notes.rawValue ? notes[sequence] : records["\(entity)/\(key)"]
            guard !isUpsert || record != nil else { continue }
            try json.pulledChange(
                first: first, entity: entity, key: key, op: op, version: sequence, deletedAt: isUpsert ? nil : row.string(4),
                note: nil as PackedColumns?, record: record)
            first = false
        }
    }

    /// The JSON of a page's notes, by their entries' sequence numbers: those the cache holds, and the others read in
    /// one query, written and kept. A note gone by now is not among them.
    private func pageNotes(_ session: PostgresSession, _ entries: [PulledNoteCache.Entry], database: String) async throws -> [Int64: Data] {
        guard !entries.isEmpty else { return [:] }
        var notes = pulledNotes.notes(entries, of: database)
        let missing = entries.filter { notes[$0.sequence] == nil }
        guard !missing.isEmpty else { return notes }
        var lists = PostgresBindings(capacity: 2)
        lists.append(missing.map(\.note))
        lists.append(missing.map(\.sequence))
        for columns in try await session.packedRows(Self.pageNotesQuery, lists) {
            var one = JSONOutput(capacity: 1024)
            try one.pulledNote(columns)
            notes[columns.int(PulledNoteColumn.seq.rawValue)] = one.withBytes { Data($0) }
        }
        pulledNotes.keep(missing, writtenAs: notes, of: database)
        return notes
    }

    /// A pull's page of the change log: its entries after `$1` of the entities listed in `$3` (names joined by
    /// commas), at most `$2`, without the tombstones numbered up to `$4` (a snapshot's start, or -1), in sequence
    /// order; each `seq, entity, entity_key, op` and its time (`deleted_at` of a tombstone, else `changed_at`).
    static let pageQuery = """
        SELECT seq, entity, entity_key, op, COALESCE(deleted_at, changed_at) AS at FROM change_log
        WHERE seq > $1 AND entity = ANY (string_to_array($3, ',')) AND (op = 'upsert' OR seq > $4) ORDER BY seq LIMIT $2
        """

    /// The notes of the ids `$1` whose entries are numbered `$2` (a page's note upserts the cache does not hold),
    /// each a `ROW(…)` of `PulledNoteColumn` (`PackedColumns`) with its entry's `seq`. A note is looked up by its id
    /// (`OFFSET 0` keeps PostgreSQL from hashing every note instead), its species by a hash of the species table,
    /// which is small and which a page of 1,000 notes names most of: looked up one by one, they took the notes'
    /// query 6.0 ms against 4.3 (BENCHMARKS.md, "PostgreSQL beside SQLite", 2026-12-02).
    static let pageNotesQuery = """
        SELECT ROW(\(PulledNoteColumn.expressions))
        FROM unnest($1::text[], $2::bigint[]) AS c(entity_key, seq)
        JOIN LATERAL (SELECT * FROM species_sources WHERE uuid = c.entity_key OFFSET 0) ss ON TRUE
        JOIN (SELECT scientific_name, \(PulledNoteColumn.taxonomy) FROM oak_entries OFFSET 0) e ON e.scientific_name = ss.scientific_name
        """

    // MARK: Push

    /// Applies the change at `index` once and answers it (`PushBatch`): a change seen before (same receipt
    /// digest) gets its recorded answer and changes nothing.
    static func applyOnce(
        _ session: PostgresSession, _ index: Int, now: Date, batch: inout PushBatch, slots: inout PushNoteSlots, inserts: inout PushNoteInserts
    ) async throws {
        if try batch.answerIfSeen(index) { return }
        let change = batch.changes[index]
        let known: (note: Note?, tombstone: NoteTombstone?)
        if let state = batch.state(of: change.id) {
            known = state
        } else {
            try await inserts.flush(session)
            known = try await storedState(session, change.id)
        }
        switch try await decide(
            session, change, current: known.note, tombstone: known.tombstone, now: now, batch: batch, slots: &slots, inserts: &inserts)
        {
        case .answer(let result): try batch.answer(index, with: result)
        case .stored: batch.awaitAnswer(index)
        }
    }

    /// A note as stored, or when there is none its tombstone.
    static func storedState(_ session: PostgresSession, _ id: UUID) async throws -> (note: Note?, tombstone: NoteTombstone?) {
        let note = try await fetchNote(session, id)
        return (note, note == nil ? try await fetchTombstone(session, id) : nil)
    }

    /// Answers the upserts of the batch stored since the last call (`PushBatch.awaitAnswer`) with their notes
    /// as the pull writes them: new notes as their insert returned them (the held ones written first), the
    /// others from one query.
    static func answerStored(_ session: PostgresSession, _ batch: inout PushBatch, _ inserts: inout PushNoteInserts) async throws {
        try await inserts.flush(session)
        for note in inserts.takeStored() { try answerAwaited(note, &batch) }
        guard let ids = batch.awaitedIDsJSON else { return }
        // `= ANY (ARRAY(…))` is looked up by the key index: `IN (SELECT …)` is planned as a scan of the whole log.
        try await session.forEach(
            PulledNoteColumn.selection(.byKey)
                + " WHERE c.entity = 'notes' AND c.entity_key = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))", [.text(ids)]
        ) { try answerAwaited($0, &batch) }
        try batch.finishAwaited()
    }

    /// Answers the upsert awaiting the note of these `PulledNoteColumn`s.
    private static func answerAwaited(_ columns: some ColumnReader, _ batch: inout PushBatch) throws {
        guard let key = columns.string(PulledNoteColumn.uuid.rawValue), let id = batch.awaitedID(key: key) else { return }
        var json = JSONOutput(capacity: 1024)
        try json.appliedPushResult(id: id, columns)
        batch.answerAwaited(key: key, encoded: json.withBytes { Data($0) })
    }

    /// Reads a push batch's receipts, the stored notes and tombstones of the ids it names (see `PushBatch`), and
    /// its species and slots (`PushNoteSlots`), in one query.
    static func pushBatch(_ session: PostgresSession, _ changes: [PushChange], history: String?) async throws -> (PushBatch, PushNoteSlots) {
        var batch = PushBatch(changes, history: history)
        var slots = PushNoteSlots()
        var binds = PostgresBindings(capacity: 6)
        binds.append(changes.map(\.id.wireString))
        binds.append(batch.digests)
        PushNoteSlots.appendParameters(of: batch, to: &binds)
        for row in try await session.rows(PushBatchStateStatement.self, binds) {
            if row.text("digest") != nil { batch.addReceipt(row) }
            if row.text("uuid") != nil { batch.addNote(Note(row: row)) }
            if row.text("entity_key") != nil { batch.addTombstone(row) }
            slots.take(row, into: &batch)
        }
        return (batch, slots)
    }

    /// For each change's id (`$1`) and digest (`$2`, the arrays in the batch's order): the digest's receipt
    /// (`digest`, `result`), the id's note (`noteSelect`'s columns) or its tombstone (`entity_key`, `seq`,
    /// `deleted_at`), those it has; and the rows of `PushNoteSlots.query` over `$3`–`$6`. The two sides of the
    /// `FULL JOIN … ON FALSE` never meet: each row is one side's, with the other's columns NULL. A digest has at
    /// most one receipt (its key); the `LIMIT` keeps its lookup one probe of that key, as the receipts grow,
    /// instead of a scan of them all (see `PushNoteSlots.query`).
    static let pushBatchStateQuery = """
        SELECT * FROM (
            SELECT r.digest, r.result, n.*, t.entity_key, t.seq, t.deleted_at
            FROM unnest($1, $2) AS k(id, digest)
            LEFT JOIN LATERAL (\(PushBatch.receiptsQuery(elements: "k.digest")) LIMIT 1) r ON TRUE
            LEFT JOIN LATERAL (\(noteSelect) WHERE ss.uuid = k.id) n ON TRUE
            LEFT JOIN LATERAL (\(PushBatch.tombstonesQuery(elements: "k.id", .byKey))) t ON TRUE
            WHERE r.digest IS NOT NULL OR n.uuid IS NOT NULL OR t.entity_key IS NOT NULL
        ) changes
        FULL JOIN (\(PushNoteSlots.query)) slots ON FALSE
        """

    /// Sends a batch's receipts in one statement, stamped by the database's clock as tombstones are (compaction
    /// removes both by one horizon); the push's commit, sent after it, reports its failure (`PostgresSession.send`).
    static func saveReceipts(_ session: PostgresSession, _ batch: PushBatch) {
        guard !batch.newReceipts.isEmpty else { return }
        var lists = PostgresBindings(capacity: 2)
        lists.append(batch.newReceipts.map { $0[0] })
        lists.append(batch.newReceipts.map { $0[1] })
        session.send(
            """
            INSERT INTO sync_receipts(digest, result, created_at)
            SELECT digest, result, \(PostgresSchema.now) FROM unnest($1::text[], $2::text[]) AS receipt(digest, result)
            """, lists)
    }

    /// Carries out the shared push rule (`PushPlan`) for one change, given the note as stored (`current`) or
    /// its tombstone; species names are looked up among those the batch read, and a new note is checked
    /// against the batch's slots and held with the batch's other new notes (`PushNoteInserts`).
    static func decide(
        _ session: PostgresSession, _ change: PushChange, current: Note?, tombstone: NoteTombstone?, now: Date, batch: PushBatch,
        slots: inout PushNoteSlots, inserts: inout PushNoteInserts
    ) async throws -> PushDecision {
        do {
            let plan = try PushPlan.plan(for: change, current: current, tombstone: tombstone, now: now, storedName: batch.storedSpeciesName)
            switch plan {
            case .answer, .insert, .unchanged: break
            case .delete, .recordTombstone, .update: try await inserts.flush(session)
            }
            switch plan {
            case .answer(let result):
                return .answer(result)
            case .delete(let note, let time):
                try await deleteSpeciesSource(session, try await fetchSpeciesSource(session, note.scientificName, note.sourceId), at: time)
                slots.freed(by: note)
                return .answer(NoteTombstone.applied(change, leaving: try await fetchTombstone(session, change.id)))
            case .recordTombstone(let time):
                try await recordTombstone(session, change.id, at: time)
                return .answer(NoteTombstone.applied(change, leaving: try await fetchTombstone(session, change.id)))
            case .update(let note):
                try await saveNote(session, id: change.id, note)
            case .unchanged:
                break
            case .insert(let name, let sourceId, let note):
                var record = try slots.newNoteRecord(
                    id: change.id, name: name, storedName: batch.existingSpeciesName(name), sourceId: sourceId, fields: note.fields,
                    at: note.writtenAt)
                record.stamp(note)
                inserts.add(record)
                slots.filled(by: record)
            }
        } catch let error as OakError where error.code == .conflict {
            try await inserts.flush(session)
            guard let id = PushPlan.winnerID(of: error), let winner = try await fetchNote(session, id) else { throw error }
            return .answer(PushPlan.lost(change, to: winner))
        } catch let error as OakError {
            guard let result = PushPlan.rejection(of: change, error) else { throw error }
            return .answer(result)
        }
        return .stored
    }

    /// A deleted note's tombstone.
    static func fetchTombstone(_ session: PostgresSession, _ id: UUID) async throws -> NoteTombstone? {
        try await session.row(PushBatch.tombstonesQuery(elements: "$1", .byKey), [.text(id.wireString)]).map(NoteTombstone.init(row:))
    }
}
