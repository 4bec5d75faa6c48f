import Foundation
import OakModels

/// A pull position, opaque to clients: `<database>.<sequence>`, or while paging a snapshot
/// `<database>.<sequence>.<snapshot start>` (tombstones older than the snapshot's start are skipped).
package struct SyncCursor: CustomStringConvertible, Equatable {
    package var database: String
    /// The last change sequence number delivered.
    package var sequence: Int64
    /// While a snapshot is being paged: the log's head when it started.
    package var snapshotStart: Int64?

    package init(database: String, sequence: Int64, snapshotStart: Int64? = nil) {
        self.database = database
        self.sequence = sequence
        self.snapshotStart = snapshotStart
    }

    /// Parses a client's cursor; none means the start of a snapshot. A cursor of another database
    /// is answered 410, so the client starts over; one that was never issued is a 400 naming `field`.
    package init(parsing text: String?, database: String, field: String = "since") throws {
        guard let text, !text.isEmpty else {
            self.init(database: database, sequence: 0)
            return
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), (1...32).contains(parts[0].count), parts[0].allSatisfy(\.isHexDigit),
            let sequence = Int64(parts[1]), sequence >= 0, parts.count == 2 || Int64(parts[2]) != nil
        else { throw OakError.invalid(field, "is not a cursor this server issued") }
        guard parts[0] == database else {
            throw CursorRefusal.otherDatabase.error("The cursor belongs to another database; pull again without a cursor")
        }
        self.init(database: database, sequence: sequence, snapshotStart: parts.count == 3 ? Int64(parts[2]) : nil)
    }

    /// A new database identity (12 hex digits, as a new database is given).
    package static func newDatabaseID() -> String {
        (0..<6).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
    }

    package var description: String {
        ([database, String(sequence)] + (snapshotStart.map { [String($0)] } ?? [])).joined(separator: ".")
    }
}

/// A copy of a database (a backup, `oak migrate`'s target) is another history from the moment a server opens it:
/// the original may go on taking writes, and a backup restored twice is two histories. A copy is marked, and
/// the server that opens it gives it a new identity (`SyncCursor.newDatabaseID`) before serving anything, so
/// cursors and base versions issued before are refused there (410, `other_database`) rather than read as its
/// own: its log reuses their numbers for other changes.
package enum CopyIdentity {
    /// The `sync_state` key of the mark.
    package static let markKey = "renew_identity"

    /// SQL (both dialects) that marks a copy.
    package static let markSQL = "INSERT INTO sync_state(key, value) VALUES ('\(markKey)', '1') ON CONFLICT(key) DO NOTHING"

    /// SQL (both dialects) whose one row says whether a database is a marked copy.
    package static let markedQuery = "SELECT COUNT(*) FROM sync_state WHERE key = '\(markKey)'"

    /// SQL (both dialects) that gives a marked copy its own identity (the new id, the first parameter), then
    /// `unmarkSQL`, in the transaction of the store's opening.
    package static let renewSQL = "UPDATE sync_state SET value = $1 WHERE key = 'database_id'"
    package static let unmarkSQL = "DELETE FROM sync_state WHERE key = '\(markKey)'"
}
