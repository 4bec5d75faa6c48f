import OakStore
import Synchronization

/// What changed after a change-log position, read on a write's own connection just after its commit, for the catch-up
/// of the answers held in memory that the write makes due. After each write through this instance every such answer
/// waits for what changed (`PostgresStore.changes(after:)`, shared by the response cache and the species records);
/// read by the write before it ends, it costs the waiting requests no lease and no round trip of their own
/// (BENCHMARKS.md, "PostgreSQL beside SQLite", 2026-12-03). The write's notification usually arrives before that read
/// is answered, so a catch-up from the read's position, or from a later one, waits for it instead of reading again.
///
/// An answer from here is never less than a caller can need: it reaches the highest head this instance has known or
/// read (`ChangeNotifications.highestHead`), which no data version handed out is past.
final class ChangesAfterWrites: Sendable {
    private struct State {
        /// The head the last answer of `changes(after:)` ran up to, where the next catch-up starts, and the listing
        /// version it gave.
        var lastAnswer: (head: Int64, listingVersion: Int64)?
        /// The last write's read (under way or done), and the position it runs from.
        var kept: (after: Int64, read: Task<DataChanges?, Never>)?
    }

    private let state = Mutex(State())

    /// How far behind the highest head known the last catch-up may be for a write that starts then to read what changed
    /// after its commit, in change-log entries: the read is then of little more than the write's own changes. Further
    /// behind, nobody is catching up (a run of writes and no reads) and the write reads nothing.
    static let longestLag: Int64 = 64

    /// Whether a write that starts now, with `highestHead` the highest head known before it, reads what changed after
    /// its commit (`read(_:)`).
    func readsAfterWrite(startingAt highestHead: Int64?) -> Bool {
        state.withLock { state in
            guard let highestHead, let through = state.lastAnswer?.head else { return false }
            return highestHead - through <= Self.longestLag
        }
    }

    /// Reads, with `changesAfter`, what changed after the position the last catch-up reached (from which the next
    /// one starts), for a write that committed; kept for that catch-up, which waits for it when it is under way. Nil
    /// when there is no such position, or the read failed.
    func read(_ changesAfter: @escaping @Sendable (Int64) async -> DataChanges?) async -> DataChanges? {
        let read: Task<DataChanges?, Never>? = state.withLock { state in
            guard let position = state.lastAnswer?.head else { return nil }
            let read = Task { await changesAfter(position) }
            state.kept = (position, read)
            return read
        }
        return await read?.value
    }

    /// What changed after `position` when it is known here up to `highestHead` at least: nothing, when the last
    /// answer ran up to `position` and it is the highest head; else the last write's read from `position` or from
    /// before it, once it is answered. A read from before `position` also holds changes the caller has seen, which
    /// its answers' owner drops again: more than it must, never less (under concurrent writes the caches' owners
    /// and the writes' reads rarely start at one position). Nil otherwise, and the caller reads the database.
    func changes(after position: Int64?, reaching highestHead: Int64?) async -> DataChanges? {
        guard let position, let highestHead else { return nil }
        let known: Known? = state.withLock { state in
            if position == highestHead, let last = state.lastAnswer, last.head == position {
                return .nothing(DataChanges(head: position, listingVersion: last.listingVersion))
            }
            guard let kept = state.kept, kept.after <= position else { return nil }
            return .read(kept.read)
        }
        switch known {
        case nil: return nil
        case .nothing(let changes): return changes
        case .read(let read):
            guard let changes = await read.value, changes.head >= highestHead else { return nil }
            answered(changes)
            return changes
        }
    }

    /// What `changes(after:reaching:)` found here.
    private enum Known {
        case nothing(DataChanges)
        case read(Task<DataChanges?, Never>)
    }

    /// `changes(after:)` answered `changes`.
    func answered(_ changes: DataChanges) {
        state.withLock { state in
            state.lastAnswer = (changes.head, changes.listingVersion)
        }
    }
}
