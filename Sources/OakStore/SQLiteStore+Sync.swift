import Crypto
import Foundation
import GRDB
import OakModels

extension SQLiteStore: SyncRepository {
    /// How far in the future a pushed timestamp may be before it is clamped to server time.
    static let allowedClockSkew: TimeInterval = 5 * 60

    public func pull(cursor: String?, limit: Int, entities: [SyncEntity]) async throws -> PullResponse {
        try await read { db in
            let database = try Self.databaseID(db)
            let position = try SyncCursor(parsing: cursor, database: database)
            let head = try Self.changeLogVersion(db)
            let compacted = Int64(try String.fetchOne(db, cachedSQL: "SELECT value FROM sync_state WHERE key = 'compacted_through'") ?? "0") ?? 0
            // A cursor is too old when tombstones it has not seen were compacted away.
            let seenThrough = position.snapshotStart ?? position.sequence
            if position.sequence > head || (seenThrough > 0 && seenThrough < compacted) {
                throw OakError(
                    .gone, "The cursor is older than the change history the server keeps, or from another database; pull again without a cursor",
                    details: ["cursor": .string(cursor ?? "")])
            }
            let snapshotStart = position.sequence == 0 ? head : position.snapshotStart
            let entityList = entities.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            // A snapshot needs no tombstones of deletes made before it started: the client starts from nothing.
            let tombstones = snapshotStart.map { "AND (op = 'upsert' OR seq > \($0))" } ?? ""
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT seq, entity, entity_key, op FROM change_log WHERE seq > ? AND entity IN (\(entityList)) \(tombstones) ORDER BY seq LIMIT ?",
                arguments: [position.sequence, limit + 1])
            let hasMore = rows.count > limit
            let page = rows.prefix(limit)
            let records = try Self.loadRecords(db, page.filter { $0["op"] == "upsert" })
            let changes = page.compactMap { row -> SyncChange? in
                guard let entity = SyncEntity(rawValue: row["entity"]), let op = SyncOperation(rawValue: row["op"]) else { return nil }
                let key: String = row["entity_key"]
                let record = records["\(entity.rawValue)/\(key)"]
                if op == .upsert, record == nil { return nil }
                return SyncChange(entity: entity, op: op, key: key, version: row["seq"], record: op == .upsert ? record : nil)
            }
            let next = SyncCursor(
                database: database, sequence: hasMore ? (page.last?["seq"] ?? position.sequence) : head,
                snapshotStart: hasMore ? snapshotStart : nil)
            return PullResponse(changes: changes, cursor: next.description, hasMore: hasMore)
        }
    }

    public func push(_ changes: [PushChange]) async throws -> [PushResult] {
        guard changes.count <= PushRequest.maxChanges else {
            throw OakError(.payloadTooLarge, "A push may carry at most \(PushRequest.maxChanges) changes; send smaller batches")
        }
        return try await write { db in
            let now = self.now
            return try changes.map { change in try Self.applyOnce(db, change, now: now) }
        }
    }

    public func compact(olderThan horizon: Date) async throws -> Int {
        try await write { db in
            let cutoff = WireTime.formatPrecise(horizon)
            let newest = try Int64.fetchOne(db, cachedSQL: "SELECT MAX(seq) FROM change_log WHERE op = 'delete' AND changed_at < ?", arguments: [cutoff])
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

    // MARK: Pull

    /// This database's identity, which every cursor carries: a cursor from another database answers 410.
    static func databaseID(_ db: Database) throws -> String {
        try String.fetchOne(db, cachedSQL: "SELECT value FROM sync_state WHERE key = 'database_id'") ?? "0"
    }

    /// The current records of upserted keys, loaded in one query per entity, keyed `entity/key`.
    static func loadRecords(_ db: Database, _ rows: some Collection<Row>) throws -> [String: SyncRecord] {
        var keys: [SyncEntity: [String]] = [:]
        for row in rows {
            if let entity = SyncEntity(rawValue: row["entity"]) { keys[entity, default: []].append(row["entity_key"]) }
        }
        var records: [String: SyncRecord] = [:]
        func placeholders(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ",") }
        for (entity, list) in keys {
            for chunk in stride(from: 0, to: list.count, by: 500).map({ Array(list[$0..<min($0 + 500, list.count)]) }) {
                let arguments = StatementArguments(chunk)
                switch entity {
                case .notes:
                    for row in try Row.fetchAll(db, sql: "\(noteSelect) WHERE ss.uuid IN (\(placeholders(chunk.count)))", arguments: arguments) {
                        let note = note(row: row)
                        records["notes/\(note.id.uuidString.lowercased())"] = .note(note)
                    }
                case .species:
                    for row in try Row.fetchAll(db, sql: "SELECT * FROM oak_entries WHERE scientific_name IN (\(placeholders(chunk.count)))", arguments: arguments) {
                        let species = Species(row: row)
                        records["species/\(species.scientificName)"] = .species(species)
                    }
                case .taxa:
                    for row in try Row.fetchAll(db, sql: "SELECT * FROM taxa WHERE level || '/' || name IN (\(placeholders(chunk.count)))", arguments: arguments) {
                        if let taxon = Taxon(row: row) { records["taxa/\(taxon.level.rawValue)/\(taxon.name)"] = .taxon(taxon) }
                    }
                case .sources:
                    for row in try Row.fetchAll(db, sql: "SELECT * FROM sources WHERE CAST(id AS TEXT) IN (\(placeholders(chunk.count)))", arguments: arguments) {
                        let source = Source(row: row)
                        records["sources/\(source.id)"] = .source(source)
                    }
                }
            }
        }
        return records
    }

    // MARK: Push

    /// Applies a change once: a change seen before (same digest) gets its recorded result and changes nothing.
    static func applyOnce(_ db: Database, _ change: PushChange, now: Date) throws -> PushResult {
        let digest = receiptDigest(change)
        if let stored = try String.fetchOne(db, cachedSQL: "SELECT result FROM sync_receipts WHERE digest = ?", arguments: [digest]) {
            return try JSONDecoder().decode(PushResult.self, from: Data(stored.utf8))
        }
        let result = try decide(db, change, now: now)
        // A rejection changed nothing: re-sending it is evaluated afresh (it may pass once its cause is fixed).
        guard result.status != .rejected else { return result }
        try db.execute(
            sql: "INSERT INTO sync_receipts(digest, result, created_at) VALUES (?, ?, ?)",
            arguments: [digest, String(decoding: try JSONEncoder().encode(result), as: UTF8.self), WireTime.formatPrecise(now)])
        return result
    }

    /// A change's identity for receipts: every field that defines it, in a fixed layout, hashed.
    static func receiptDigest(_ change: PushChange) -> String {
        let note = change.note.map { "\($0.scientificName)|\($0.sourceId.map(String.init) ?? "-")|\($0.fields.tieBreakKey)" } ?? "-"
        let text = "\(change.id.uuidString.lowercased())|\(change.op.rawValue)|\(change.baseVersion.map(String.init) ?? "-")|"
            + "\(WireTime.formatPrecise(change.updatedAt))|\(note)"
        return SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether an edit at `time` with `fields` beats the server's copy: later wins; a tie goes to the
    /// greater content, so every replica picks the same winner whatever the order of arrival.
    public static func wins(_ time: Date, _ fields: NoteFields?, over serverTime: Date, _ serverFields: NoteFields?) -> Bool {
        if time != serverTime { return time > serverTime }
        return (fields?.tieBreakKey ?? "") > (serverFields?.tieBreakKey ?? "")
    }

    static func decide(_ db: Database, _ change: PushChange, now: Date) throws -> PushResult {
        let time = WireTime.milliseconds(change.updatedAt > now.addingTimeInterval(allowedClockSkew) ? now : change.updatedAt)
        let current = try fetchNote(db, change.id)
        let tombstone = current == nil ? try fetchTombstone(db, change.id) : nil
        let fastForward = { (version: Int64) in change.baseVersion == version }

        switch change.op {
        case .delete:
            if let current {
                guard fastForward(current.version) || wins(time, nil, over: current.updatedAt, current.fields) else {
                    return PushResult(id: change.id, status: .stale, version: current.version, note: current)
                }
                let record = try fetchSpeciesSource(db, current.scientificName, current.sourceId)
                try deleteSpeciesSource(db, record, at: time)
                return PushResult(id: change.id, status: .applied, version: try fetchTombstone(db, change.id)?.version)
            }
            return PushResult(id: change.id, status: .applied, version: tombstone?.version)

        case .upsert:
            guard let body = change.note else {
                return PushResult(id: change.id, status: .rejected, error: .invalid("note", "is required for an upsert"))
            }
            do {
                if let current {
                    guard Species.normalizedName(body.scientificName) == current.scientificName,
                        (body.sourceId ?? Source.personalObservationID) == current.sourceId
                    else { throw OakError.invalid("note.scientificName", "a note's species and source cannot change") }
                    guard fastForward(current.version) || wins(time, body.fields, over: current.updatedAt, current.fields) else {
                        return PushResult(id: change.id, status: .stale, version: current.version, note: current)
                    }
                    if body.fields != current.fields || time != current.updatedAt {
                        try saveNote(db, id: change.id, fields: body.fields, updatedAt: time)
                    }
                } else {
                    if let tombstone, !fastForward(tombstone.version), !wins(time, body.fields, over: tombstone.deletedAt, nil) {
                        return PushResult(id: change.id, status: .stale, version: tombstone.version)
                    }
                    var record = try newNoteRecord(db, id: change.id, name: body.scientificName, sourceId: body.sourceId, fields: body.fields, at: time)
                    try insertChecked(db, &record)
                }
            } catch let error as OakError where error.code == .conflict {
                // Another device created the note for this species and source first: its note is the server's.
                guard case .string(let otherID)? = error.details?["id"], let id = UUID(uuidString: otherID),
                    let winner = try fetchNote(db, id)
                else { throw error }
                return PushResult(id: change.id, status: .stale, version: winner.version, note: winner)
            } catch let error as OakError where error.code == .validationError {
                return PushResult(id: change.id, status: .rejected, error: error)
            }
            let stored = try requireNote(db, change.id)
            return PushResult(id: change.id, status: .applied, version: stored.version, note: stored)
        }
    }

    /// A deleted note's tombstone: its version and when the delete happened.
    static func fetchTombstone(_ db: Database, _ id: UUID) throws -> (version: Int64, deletedAt: Date)? {
        guard let row = try Row.fetchOne(
            db, cachedSQL: "SELECT seq, COALESCE(deleted_at, changed_at) AS deleted_at FROM change_log WHERE entity = 'notes' AND entity_key = ? AND op = 'delete'",
            arguments: [id.uuidString.lowercased()])
        else { return nil }
        return (row["seq"], ColumnCoding.date(row["deleted_at"]))
    }
}
