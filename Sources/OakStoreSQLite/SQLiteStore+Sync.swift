import Foundation
import GRDB
import NIOCore
import OakModels
import OakSQLite
import OakStore
import OakStoreKit

extension SQLiteStore: SyncRepository {
    public func pull(
        cursor: String?, limit: Int, entities: [SyncEntity], following: (@Sendable (String) -> Void)?
    ) async throws -> PulledPage {
        try await longRead { db in
            let database = try Self.databaseID(db)
            let head = try Self.changeLogVersion(db)
            let window = try PullWindow(cursor: cursor, database: database, head: head, compactedThrough: try Self.compactedThrough(db))
            let position = window.position
            // A pull that is not a snapshot needs every tombstone: every sequence number is past -1.
            let rows = try PageRow.fetchAll(
                db, sql: Self.pageQuery(entities: entities), arguments: [position.sequence, limit + 1, window.snapshotStart ?? -1])
            let hasMore = rows.count > limit
            let page = rows.prefix(limit)
            let next = window.next(hasMore: hasMore, lastSequence: page.last?.sequence)
            if hasMore { following?(next.description) }
            var json = JSONOutput(capacity: 64 * 1024 + page.count * 1024)
            json.beginPull()
            try Self.writeChanges(db, page, after: position.sequence, through: page.last?.sequence ?? position.sequence, into: &json)
            return json.endPull(cursor: next, hasMore: hasMore)
        }
    }

    /// One: a page is read in process in less time than its client takes to parse it, so a second page read ahead
    /// would only wait in memory (about 3 MB more at the peak of the benchmark's load, with no pull faster).
    public var pullPagesReadAhead: Int { 1 }

    public func push(_ changes: [PushChange], cursor: String?) async throws -> ByteBuffer {
        try PushBatch.checkSize(of: changes)
        return try await write { db in
            let history = try cursor.map {
                try PullWindow.sameHistory($0, database: try Self.databaseID(db), head: try Self.changeLogVersion(db), field: "cursor").database
            }
            let now = self.now
            // What every change of the batch needs is read in four queries, not four per change.
            var batch = try Self.pushBatch(db, changes, history: history)
            for (index, change) in changes.enumerated() {
                if batch.awaitsAnswer(for: change.id) { try Self.answerStored(db, &batch) }
                try Self.applyOnce(db, index, now: now, batch: &batch)
            }
            try Self.answerStored(db, &batch)
            try Self.saveReceipts(db, batch)
            return batch.responseBody()
        }
    }

    public func compact(olderThan horizon: Date) async throws -> Int {
        let cutoff = WireTime.formatPrecise(horizon)
        guard try read({ try Int.fetchOne($0, sql: StoreSQL.anythingToCompact(cutoff: "?1"), arguments: [cutoff]) }) == 1 else { return 0 }
        return try await write { db in
            let newest = try Int64.fetchOne(db, cachedSQL: Self.newestCompactableQuery, arguments: [cutoff])
            try db.execute(cachedSQL: "DELETE FROM sync_receipts WHERE created_at < ?", arguments: [cutoff])
            guard let newest else { return 0 }
            try db.execute(cachedSQL: "DELETE FROM change_log WHERE op = 'delete' AND seq <= ?", arguments: [newest])
            let removed = db.changesCount
            try db.execute(
                sql: """
                    INSERT INTO sync_state(key, value) VALUES ('compacted_through', ?)
                    ON CONFLICT(key) DO UPDATE SET value = MAX(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))
                    """,
                arguments: [String(newest)])
            return removed
        }
    }

    /// The newest tombstone older than a time (the argument). `+seq` keeps SQLite from walking the whole log
    /// back from its end for `MAX`: it reads the index of tombstones (v12) instead.
    static let newestCompactableQuery = "SELECT MAX(+seq) FROM change_log WHERE op = 'delete' AND changed_at < ?"

    // MARK: Pull

    /// The newest sequence number whose tombstones compaction may have removed.
    static func compactedThrough(_ db: Database) throws -> Int64 {
        Int64(try String.fetchOne(db, cachedSQL: "SELECT value FROM sync_state WHERE key = 'compacted_through'") ?? "0") ?? 0
    }

    /// This database's identity, which every cursor carries: a cursor from another database answers 410.
    static func databaseID(_ db: Database) throws -> String {
        try String.fetchOne(db, cachedSQL: "SELECT value FROM sync_state WHERE key = 'database_id'") ?? "0"
    }

    /// The change-log rows of a page: after a sequence number, up to a limit, with the tombstones after a third
    /// (the three arguments). A snapshot needs no tombstones of deletes made before it started: the client
    /// starts from nothing. `+` keeps SQLite off the entity and op indexes: a page is a range of `seq`, the
    /// table's own order (with them it gathered and sorted every later change for each page). The text
    /// depends on the entities only, so its prepared statement is kept.
    static func pageQuery(entities: [SyncEntity]) -> String {
        let entityList = entities.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return """
            SELECT seq, entity, entity_key, op, COALESCE(deleted_at, changed_at) FROM change_log
            WHERE seq > ?1 AND +entity IN (\(entityList)) AND (+op = 'upsert' OR seq > ?3) ORDER BY seq LIMIT ?2
            """
    }

    /// A row of a pull page (`pageQuery`'s columns).
    struct PageRow {
        let sequence: Int64
        let entity: String
        let key: String
        let op: String
        /// For a delete: when it happened.
        let deletedAt: String?

        var isUpsert: Bool { op == SyncOperation.upsert.rawValue }

        /// The rows of a page query, read from the statement's columns in place, not copied into GRDB rows
        /// first (see BENCHMARKS.md, "Server round 2", item 15).
        static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments) throws -> [PageRow] {
            let statement = try db.cachedStatement(sql: sql)
            let cursor = try Row.fetchCursor(statement, arguments: arguments)
            let columns = StatementColumns(statement)
            var rows: [PageRow] = []
            while try cursor.next() != nil {
                let op = columns.string(3) ?? ""
                rows.append(
                    PageRow(
                        sequence: columns.int(0), entity: columns.string(1) ?? "", key: columns.string(2) ?? "", op: op,
                        deletedAt: op == SyncOperation.delete.rawValue ? columns.string(4) : nil))
            }
            return rows
        }
    }

    /// Writes a page of the change log as `SyncChange`s. Notes, most of any page, are written from the
    /// columns of one query over the page's range, read in step with the page; other records are encoded
    /// from their models. An upsert whose record is gone by now is left out (its delete follows later).
    static func writeChanges(
        _ db: Database, _ page: some Collection<PageRow>, after start: Int64, through end: Int64, into json: inout JSONOutput
    ) throws {
        let records = try encodedRecords(db, page.filter { $0.isUpsert && $0.entity != SyncEntity.notes.rawValue })
        let noteStatement = try db.cachedStatement(sql: PulledNoteColumn.query)
        let notes = try Row.fetchCursor(noteStatement, arguments: [start, end])
        let note = StatementColumns(noteStatement)
        var onNote = try notes.next() != nil
        var first = true
        for row in page {
            var record: Data?
            var isNote = false
            if row.isUpsert, row.entity == SyncEntity.notes.rawValue {
                while onNote, note.int(PulledNoteColumn.seq.rawValue) < row.sequence { onNote = try notes.next() != nil }
                isNote = onNote && note.int(PulledNoteColumn.seq.rawValue) == row.sequence
                guard isNote else { continue }
            } else if row.isUpsert {
                record = records["\(row.entity)/\(row.key)"]
                guard record != nil else { continue }
            }
            try json.pulledChange(
                first: first, entity: row.entity, key: row.key, op: row.op, version: row.sequence, deletedAt: row.deletedAt,
                note: isNote ? note : nil, record: record)
            first = false
        }
        // `note` reads the statement the cursor steps; the cursor resets it when it goes.
        withExtendedLifetime(notes) {}
    }

    /// The current records of upserted species, taxa and sources as JSON, keyed `entity/key`, from page rows;
    /// one query per entity, its keys bound as one JSON list (the same text every time, so prepared once).
    /// Each record is made while the statement is on its row, where GRDB finds a column by name with one lookup.
    static func encodedRecords(_ db: Database, _ rows: some Collection<PageRow>) throws -> [String: Data] {
        var keys: [SyncEntity: [String]] = [:]
        for row in rows {
            if let entity = SyncEntity(rawValue: row.entity) { keys[entity, default: []].append(row.key) }
        }
        var records: [String: Data] = [:]
        for (entity, list) in keys {
            guard let sql = SyncRecords.query(entity, keysIn: "(SELECT value FROM json_each(?))") else { continue }
            let statement = try db.cachedStatement(sql: sql)
            let cursor = try Row.fetchCursor(statement, arguments: [ColumnCoding.json(list)])
            let columns = StatementColumns(statement)
            while let row = try cursor.next() {
                if let record = try SyncRecords.encoded(entity, row, columns) { records[record.key] = record.json }
            }
        }
        return records
    }

    // MARK: Push

    /// Applies the change at `index` once and answers it (`PushBatch`): a change seen before (same receipt
    /// digest) gets its recorded answer and changes nothing.
    static func applyOnce(_ db: Database, _ index: Int, now: Date, batch: inout PushBatch) throws {
        if try batch.answerIfSeen(index) { return }
        let change = batch.changes[index]
        let known = try batch.state(of: change.id) ?? storedState(db, change.id)
        switch try decide(db, change, current: known.note, tombstone: known.tombstone, now: now, batch: batch) {
        case .answer(let result): try batch.answer(index, with: result)
        case .stored: batch.awaitAnswer(index)
        }
    }

    /// A note as stored, or when there is none its tombstone.
    static func storedState(_ db: Database, _ id: UUID) throws -> (note: Note?, tombstone: NoteTombstone?) {
        let note = try fetchNote(db, id)
        return (note, note == nil ? try fetchTombstone(db, id) : nil)
    }

    /// Reads what a push batch's changes need, in four queries (see `PushBatch`).
    static func pushBatch(_ db: Database, _ changes: [PushChange], history: String?) throws -> PushBatch {
        let elements = "SELECT value FROM json_each(?)"
        var batch = PushBatch(changes, history: history)
        for row in try Row.fetchAll(db, cachedSQL: PushBatch.receiptsQuery(elements: elements), arguments: [batch.digestsJSON]) {
            batch.addReceipt(row)
        }
        let ids = PushBatch.ids(of: changes)
        for note in try db.fetchAll(cachedSQL: "\(Self.noteSelect) WHERE ss.uuid IN (\(elements))", arguments: [ids], Note.init(row:)) {
            batch.addNote(note)
        }
        for row in try Row.fetchAll(db, cachedSQL: PushBatch.tombstonesQuery(elements: elements, .byNoteRow), arguments: [ids]) { batch.addTombstone(row) }
        for row in try Row.fetchAll(db, cachedSQL: PushBatch.speciesQuery(elements: elements), arguments: [batch.speciesNamesJSON]) {
            batch.addSpecies(row)
        }
        return batch
    }

    /// Writes a batch's receipts, one prepared insert per receipt, stamped by the database's clock as tombstones
    /// are (compaction removes both by one horizon). In process a row costs a step, not a round trip: binding
    /// each row is cheaper than one statement over a JSON list of them, which escapes every answer into the list
    /// and parses it back (see BENCHMARKS.md, "Server round 2", item 24).
    static func saveReceipts(_ db: Database, _ batch: PushBatch) throws {
        let insert = try db.cachedStatement(sql: "INSERT INTO sync_receipts(digest, result, created_at) VALUES (?, ?, \(Schema.now))")
        for receipt in batch.newReceipts {
            insert.setUncheckedArguments([receipt[0], receipt[1]])
            try insert.execute()
        }
    }

    /// Answers the upserts of the batch stored since the last call (`PushBatch.awaitAnswer`) with their notes
    /// as the pull writes them: one query for them all, no `Note` built, no `JSONEncoder` (a query per note, or
    /// models and the encoder, would each be a large part of a push: see BENCHMARKS.md, "Server round 2", item 9,
    /// and "Where the targets stand", item 11).
    static func answerStored(_ db: Database, _ batch: inout PushBatch) throws {
        guard let ids = batch.awaitedIDsJSON else { return }
        let statement = try db.cachedStatement(sql: PulledNoteColumn.queryByKeys)
        let rows = try Row.fetchCursor(statement, arguments: [ids])
        let columns = StatementColumns(statement)
        while try rows.next() != nil {
            guard let key = columns.string(PulledNoteColumn.uuid.rawValue), let id = batch.awaitedID(key: key) else { continue }
            var json = JSONOutput(capacity: 1024)
            try json.appliedPushResult(id: id, columns)
            batch.answerAwaited(key: key, encoded: json.withBytes { Data($0) })
        }
        try batch.finishAwaited()
    }

    /// Carries out the shared push rule (`PushPlan`) for one change, given the note as stored (`current`) or its
    /// tombstone; species names are looked up among those the batch read.
    static func decide(_ db: Database, _ change: PushChange, current: Note?, tombstone: NoteTombstone?, now: Date, batch: PushBatch) throws
        -> PushDecision
    {
        do {
            switch try PushPlan.plan(for: change, current: current, tombstone: tombstone, now: now, storedName: batch.storedSpeciesName) {
            case .answer(let result):
                return .answer(result)
            case .delete(let note, let time):
                try deleteSpeciesSource(db, try fetchSpeciesSource(db, note.scientificName, note.sourceId), at: time)
                return .answer(NoteTombstone.applied(change, leaving: try fetchTombstone(db, change.id)))
            case .recordTombstone(let time):
                try recordTombstone(db, change.id, at: time)
                return .answer(NoteTombstone.applied(change, leaving: try fetchTombstone(db, change.id)))
            case .update(let note):
                try saveNote(db, id: change.id, note)
            case .unchanged:
                break
            case .insert(let name, let sourceId, let note):
                var record = try NewNote.record(
                    id: change.id, name: name, storedName: batch.existingSpeciesName(name), sourceId: sourceId, fields: note.fields, at: note.writtenAt)
                record.stamp(note)
                try insertNewNote(db, &record)
            }
        } catch let error as OakError where error.code == .conflict {
            guard let id = PushPlan.winnerID(of: error), let winner = try fetchNote(db, id) else { throw error }
            return .answer(PushPlan.lost(change, to: winner))
        } catch let error as OakError {
            guard let result = PushPlan.rejection(of: change, error) else { throw error }
            return .answer(result)
        }
        return .stored
    }

    /// A deleted note's tombstone: its version and when the delete happened.
    static func fetchTombstone(_ db: Database, _ id: UUID) throws -> NoteTombstone? {
        try Row.fetchOne(db, cachedSQL: PushBatch.tombstonesQuery(elements: "?", .byNoteRow), arguments: [id.wireString]).map(NoteTombstone.init(row:))
    }
}

extension PulledNoteColumn {
    /// The notes upserted after a sequence number, up to another (the two arguments).
    static let query = selection(.byNoteRow) + " WHERE +c.entity = 'notes' AND +c.op = 'upsert' AND c.seq > ? AND c.seq <= ? ORDER BY c.seq"

    /// The notes whose ids are in a JSON array (the argument).
    static let queryByKeys = selection(.byNoteRow) + " WHERE ss.uuid IN (SELECT value FROM json_each(?))"
}
