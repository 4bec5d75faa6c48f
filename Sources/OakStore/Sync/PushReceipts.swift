import Crypto
import Foundation
import OakModels

/// Push receipts: a change sent again (a lost response, a retry) gets the answer the first one got and
/// changes nothing. Every store keeps receipts by this digest.
public enum PushReceipts {
    /// A change's identity: every field that defines it, in a fixed layout, hashed (SHA-256, in hex). A push that
    /// names its cursor is sent from a history (`history`, the database the cursor was issued by): the same
    /// change from another history (a device sending again, after a restore, what the server lost) is another
    /// change, weighed afresh, not answered as the restored server once answered it.
    public static func digest(of change: PushChange, history: String? = nil) -> String {
        // Field times join the layout only when named, so a change without them keeps the digest it always had.
        let note =
            change.note.map {
                "\($0.scientificName)|\($0.sourceId.map(String.init) ?? "-")|\($0.fields.canonicalText)"
                    + (FieldTimesJSON.text($0.fieldTimes).map { "|" + $0 } ?? "")
            } ?? "-"
        let text =
            "\(change.id.wireString)|\(change.op.rawValue)|\(change.baseVersion.map(String.init) ?? "-")|"
            + "\(WireTime.formatPrecise(change.updatedAt))|\(note)" + (history.map { "|@" + $0 } ?? "")
        return SHA256.hash(data: Data(text.utf8)).hexString
    }
}
