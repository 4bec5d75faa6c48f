import Foundation
import OakModels

/// What the README's sync rule says the notes must be once every device has synced, computed from the user
/// writes alone, apart from the code under test: per note (a species' personal note), each field holds the
/// value written last (equal times: the greater text), unless a delete came after it; the note exists if a
/// write came after its latest delete (a delete and a write at one time: the delete wins).
struct SyncOracle {
    /// One user write: its time on the device that made it (a hybrid logical time), the fields it wrote (a
    /// new note writes them all, an edit those it changed), or a delete.
    struct Write: CustomStringConvertible {
        var device: Int
        var time: Date
        /// Nil for a delete.
        var fields: [NoteFields.Field: String?]?

        var description: String {
            let what = fields.map { $0.map { "\($0.key.rawValue)=\($0.value ?? "nil")" }.sorted().joined(separator: ",") } ?? "delete"
            return "device \(device) at \(WireTime.formatPrecise(time)): \(what)"
        }
    }

    private(set) var writes: [String: [Write]] = [:]

    mutating func record(species: String, _ write: Write) {
        writes[species, default: []].append(write)
    }

    /// The note the rule chooses for a species, or nil when it is deleted or was never made.
    func expected(_ species: String) -> NoteFields? {
        let history = writes[species] ?? []
        let lastDelete = history.filter { $0.fields == nil }.map(\.time).max() ?? .distantPast
        guard history.contains(where: { $0.fields != nil && $0.time > lastDelete }) else { return nil }
        var result = NoteFields()
        for field in NoteFields.Field.allCases {
            var chosen: (time: Date, value: String?)?
            for write in history {
                guard let fields = write.fields, let value = fields[field] else { continue }
                if let current = chosen, current.time > write.time || (current.time == write.time && (current.value ?? "") >= (value ?? "")) {
                    continue
                }
                chosen = (write.time, value)
            }
            if let chosen, chosen.time > lastDelete { result[field] = chosen.value }
        }
        return result
    }

    /// The writes of a species, for a failure's report.
    func history(_ species: String) -> String {
        (writes[species] ?? []).map { "    \($0)" }.joined(separator: "\n")
    }
}
