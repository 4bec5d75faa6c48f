import Foundation
import OakModels

/// The rule of a note's delete (`DELETE /api/v1/notes/{id}`), over the note as stored: refused when an `If-Match`
/// named another version (412); made on the current version, so timed after it (the sync rule's time), which its
/// tombstone records.
package enum NoteDelete {
    /// When the delete of `note` happens.
    package static func time(deleting note: Note, expectedVersion: Int64?, now: Date) throws -> Date {
        try note.check(expectedVersion: expectedVersion)
        return SyncRules.hybridTime(now, after: note.updatedAt)
    }
}
