import Foundation
import NIOCore
import OakModels

/// A page of a pull: its JSON (the wire form of `PullResponse`) and, when more follow, the cursor that asks
/// for the next page.
public struct PulledPage: Sendable {
    public let body: ByteBuffer
    /// The page's `cursor` when `hasMore` is true; nil on the last page.
    public let following: String?

    package init(body: ByteBuffer, following: String?) {
        self.body = body
        self.following = following
    }
}

/// Where a pull reads from, checked against the change log: the rules every backend's pull applies.
package struct PullWindow {
    /// The client's position.
    package let position: SyncCursor
    /// While a snapshot is paged: the log's head when it started (tombstones before it are skipped).
    package let snapshotStart: Int64?
    private let head: Int64

    /// Checks a client's cursor against this database (`database`), its log's head and the newest sequence
    /// number compaction may have removed: another database's cursor, one ahead of the log (a restored
    /// database) and one older than the compaction horizon are answered 410.
    package init(cursor: String?, database: String, head: Int64, compactedThrough: Int64) throws {
        let position = try Self.sameHistory(cursor, database: database, head: head)
        // A cursor is too old when tombstones it has not seen were compacted away.
        let seenThrough = position.snapshotStart ?? position.sequence
        if seenThrough > 0 && seenThrough < compactedThrough {
            throw CursorRefusal.expired.error(
                "The cursor is older than the change history the server keeps; pull again without a cursor",
                details: ["cursor": .string(cursor ?? "")])
        }
        self.position = position
        self.head = head
        snapshotStart = position.sequence == 0 ? head : position.snapshotStart
    }

    /// The position of a cursor issued by this database's history: 410 for one of another database (a
    /// restored backup or a migrated copy has an identity of its own) or ahead of the log (the database lost
    /// its last writes). A push is checked by the same rule (`field` "cursor"), so no base version from
    /// another history fast-forwards.
    package static func sameHistory(_ cursor: String?, database: String, head: Int64, field: String = "since") throws -> SyncCursor {
        let position = try SyncCursor(parsing: cursor, database: database, field: field)
        if position.sequence > head {
            throw CursorRefusal.ahead.error(
                "The cursor is ahead of this server's change history (\(position.sequence) > \(head)); was the database restored from a backup? Pull again without a cursor",
                details: ["cursor": .string(cursor ?? ""), "head": .number(Double(head))])
        }
        return position
    }

    /// The cursor after a page: its last change while more follow, else the head read with the page.
    package func next(hasMore: Bool, lastSequence: Int64?) -> SyncCursor {
        SyncCursor(
            database: position.database, sequence: hasMore ? (lastSequence ?? position.sequence) : head,
            snapshotStart: hasMore ? snapshotStart : nil)
    }
}

extension JSONOutput {
    /// Starts a `PullResponse`: the opening of its `changes` array.
    package mutating func beginPull() {
        raw(#"{"changes":["#)
    }

    /// One `SyncChange` with its record: a note from the columns of `PulledNoteColumn`, another record's JSON,
    /// or neither (`null`, a delete); `first` says whether it opens the array.
    @inlinable
    public mutating func pulledChange<Columns: ColumnReader>(
        first: Bool, entity: String, key: String, op: String, version: Int64, deletedAt: String? = nil, note: Columns?, record: Data?
    ) throws {
        raw(first ? "{" : ",{")
        if let deletedAt {
            raw(#""deletedAt":"#)
            string(WireTime.parse(deletedAt).map(WireTime.formatPrecise) ?? deletedAt)
            raw(",")
        }
        raw(#""entity":"#)
        string(entity)
        raw(#","key":"#)
        string(key)
        raw(#","op":"#)
        string(op)
        raw(#","record":"#)
        if let note {
            try pulledNote(note)
        } else if let record {
            raw(record)
        } else {
            null()
        }
        raw(#","version":"#)
        int(version)
        raw("}")
    }

    /// Ends a `PullResponse` with its cursor and hands the page over.
    package mutating func endPull(cursor: SyncCursor, hasMore: Bool) -> PulledPage {
        let cursor = cursor.description
        raw(#"],"cursor":"#)
        string(cursor)
        raw(#","hasMore":"#)
        bool(hasMore)
        raw("}")
        return PulledPage(body: takeByteBuffer(), following: hasMore ? cursor : nil)
    }

    /// The `PushResult` of an upsert just stored: the note as the pull writes it, from `PulledNoteColumn`s.
    @inlinable
    public mutating func appliedPushResult(id: UUID, _ columns: some ColumnReader) throws {
        raw(#"{"error":null,"id":"#)
        string(id.wireString)
        raw(#","note":"#)
        try pulledNote(columns)
        raw(#","status":"applied","version":"#)
        int(columns.int(PulledNoteColumn.seq.rawValue))
        raw("}")
    }
}

/// The records of species, taxa and sources in a pull, read by their change-log keys.
package enum SyncRecords {
    /// SQL of the current rows of `entity` whose change-log keys are in `list` (SQL of a list of texts);
    /// nil for notes, which the pull writes from `PulledNoteColumn`s.
    package static func query(_ entity: SyncEntity, keysIn list: String) -> String? {
        switch entity {
        case .notes: nil
        case .species: "\(SpeciesRecordColumn.selection) WHERE scientific_name IN \(list)"
        case .taxa: "SELECT * FROM taxa WHERE level || '/' || name IN \(list)"
        case .sources: "SELECT * FROM sources WHERE CAST(id AS TEXT) IN \(list)"
        }
    }

    /// A row of `query` as its record's JSON, keyed `entity/key`; nil for a row the server cannot read
    /// (a taxon of an unknown level). `columns` reads the same row by position: species are written from it.
    package static func encoded(_ entity: SyncEntity, _ row: some StoredRow, _ columns: some ColumnReader) throws -> (key: String, json: Data)? {
        switch entity {
        case .notes:
            return nil
        case .species:
            var json = JSONOutput(capacity: 1024)
            try json.speciesRecord(columns)
            return ("species/\(columns.string(SpeciesRecordColumn.scientificName.rawValue) ?? "")", json.withBytes { Data($0) })
        case .taxa:
            guard let taxon = Taxon(row: row) else { return nil }
            return ("taxa/\(taxon.changeLogKey)", try WireJSON.encoder.encode(taxon))
        case .sources:
            let source = Source(row: row)
            return ("sources/\(source.id)", try WireJSON.encoder.encode(source))
        }
    }
}

extension Taxon {
    /// A taxon's key in the change log, `level/name` (the triggers write it in SQL the same way).
    package static func changeLogKey(level: String, name: String) -> String { "\(level)/\(name)" }

    package var changeLogKey: String { Self.changeLogKey(level: level.rawValue, name: name) }
}
