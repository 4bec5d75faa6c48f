import Foundation
import NIOCore
import Synchronization

/// Notes as a pull writes them (`JSONOutput.pulledNote`), kept by the change-log entry that made each version, so
/// a pull reads from PostgreSQL only the notes it has not written before. A note's entry names one version for
/// good: any change to a note, its species' taxonomy included, logs it again under a new sequence number. An
/// entry is known by its sequence number, its note's id and its time (`changed_at`, to the microsecond), which a
/// database set back in time and written again (a point-in-time recovery) does not give twice; and the cache
/// holds one database's notes, the one its last pull named. Only pulls fill it, with notes read committed.
///
/// A note read from PostgreSQL cost a pull about 10 µs of CPU (its row looked up, sent, decoded and written as
/// JSON: 7 of PostgreSQL's and 3 of the server's), which held notes save (BENCHMARKS.md, "2026-12-02, evening").
/// SQLite's notes are read in the server's process, and its pull is bound by the client's parsing: it has none.
/// The oldest notes kept go first once `budget` bytes of JSON are held.
final class PulledNoteCache: Sendable {
    /// A note's entry in the change log.
    struct Entry: Hashable, Sendable {
        let sequence: Int64
        let note: String
        let time: String
    }

    /// The JSON held most, in bytes: about 40,000 notes.
    static let defaultBudget = 32 << 20

    private struct Held {
        var database = ""
        /// By sequence number, the cheapest part of an entry to hash; the rest is checked on the way out.
        var notes: [Int64: (entry: Entry, json: Data)] = [:]
        var order = CircularBuffer<Int64>()
        var bytes = 0
    }

    private let held = Mutex(Held())
    let budget: Int

    init(budget: Int = PulledNoteCache.defaultBudget) {
        self.budget = budget
    }

    /// The notes held among `entries`, by sequence number, of the database `database` (all of another's are let go).
    func notes(_ entries: [Entry], of database: String) -> [Int64: Data] {
        held.withLock { held in
            guard held.database == database else {
                held = Held(database: database)
                return [:]
            }
            var found: [Int64: Data] = [:]
            for entry in entries {
                if let note = held.notes[entry.sequence], note.entry == entry { found[entry.sequence] = note.json }
            }
            return found
        }
    }

    /// Holds the notes of `entries` just read, as `notes` has them by sequence number (an entry without one, a note
    /// gone by now, is left out), letting the oldest go past the budget.
    func keep(_ entries: [Entry], writtenAs notes: [Int64: Data], of database: String) {
        held.withLock { held in
            if held.database != database { held = Held(database: database) }
            for entry in entries {
                guard let json = notes[entry.sequence] else { continue }
                if let replaced = held.notes.updateValue((entry, json), forKey: entry.sequence) {
                    held.bytes -= replaced.json.count
                } else {
                    held.order.append(entry.sequence)
                }
                held.bytes += json.count
            }
            while held.bytes > budget, let oldest = held.order.popFirst() {
                held.bytes -= held.notes.removeValue(forKey: oldest)?.json.count ?? 0
            }
        }
    }

    /// How many notes are held.
    var count: Int { held.withLock { $0.notes.count } }
}
