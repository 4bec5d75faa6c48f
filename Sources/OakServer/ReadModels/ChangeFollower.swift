import Foundation
import OakStore
import Synchronization

/// Keeps in-memory answers derived from the data current: when the data version moves, reads what changed
/// since the position the answers are current at and hands it to the owner, which drops what it alters.
/// Not thread-safe: its owner calls it under its own lock, which it does not hold while the changes are
/// read (`ChangeReads`; a database round trip for PostgreSQL).
struct ChangeFollower {
    /// The change-log position the owner's answers are current at (nil before the first call).
    private(set) var position: Int64?
    private var checkedVersion: DataVersion?
    private var listingVersion: Int64?
    /// The changes applied last, oldest first, each with the position it was read after: an answer computed
    /// while they were applied is still current if none of them alters it (`isCurrent`).
    private var recent: [(from: Int64?, changes: DataChanges, listingMoved: Bool)] = []
    /// How many applied changes `recent` keeps. Under a steady stream of writes an answer read from PostgreSQL
    /// takes long enough for a few to be applied meanwhile, nearly always of other species.
    private static let recentLimit = 32

    /// Whether the answers need the changes since `position` to be current at `version`.
    func isDue(for version: DataVersion) -> Bool {
        checkedVersion.map { version > $0 } ?? true
    }

    /// Applies `changed`, read after `from` for `version`: `drop` is given it, with whether the listing
    /// version moved (nothing is dropped on the first call, when nothing is held yet, nor when nothing changed:
    /// the version moved by a write that changed nothing, or one applied already). False, changing nothing, when
    /// another caller moved the position meanwhile.
    mutating func apply(
        _ changed: DataChanges, readAfter from: Int64?, for version: DataVersion, drop: (DataChanges, _ listingMoved: Bool) -> Void
    ) -> Bool {
        guard from == position else { return false }
        let listingMoved = changed.listingVersion != listingVersion
        if position != nil, !changed.isEmpty || listingMoved {
            drop(changed, listingMoved)
            recent.append((from, changed, listingMoved))
            if recent.count > Self.recentLimit { recent.removeFirst() }
        }
        (checkedVersion, position, listingVersion) = (version, changed.head, changed.listingVersion)
        return true
    }

    /// Whether an answer computed from the data once the answers were current at `filled` is current now: the
    /// position has not moved since, or none of the changes applied since can alter it (`isAltered`, the
    /// owner's rule for that answer; a change of everything alters every answer). An answer older than the
    /// changes kept is not.
    func isCurrent(filledAt filled: Int64?, unlessAlteredBy isAltered: (DataChanges, _ listingMoved: Bool) -> Bool) -> Bool {
        var reached = position
        for step in recent.reversed() {
            if reached == filled { return true }
            if step.changes.everything || isAltered(step.changes, step.listingMoved) { return false }
            reached = step.from
        }
        return reached == filled
    }
}

/// Reads of what changed after a change-log position, shared by every owner of answers (the response cache, the
/// species records) and every request: one that finds its answers due at a position while a read of the changes
/// after it is under way, begun by a caller that had seen at least its version, takes that read instead of making
/// its own. After a write every request and both owners find their answers due at once; each reading the same
/// changes itself would make a round trip to PostgreSQL apiece, queued for the pool's connections.
final class ChangeReads: Sendable {
    /// A read under way: the data version its starter saw before it began (its changes run at least up to it).
    private struct Read {
        let version: DataVersion
        let task: Task<DataChanges, any Error>
    }

    private let readChanges: @Sendable (Int64?) async throws -> DataChanges
    /// By the position read after.
    private let underWay = Mutex<[Int64?: Read]>([:])

    /// Reads with `readChanges`: the store's `changes(after:)`.
    init(_ readChanges: @escaping @Sendable (Int64?) async throws -> DataChanges) {
        self.readChanges = readChanges
    }

    /// What changed after `from`, read by a read begun once the data was at `version` or later; with the version
    /// that read's starter saw, which its changes run at least up to.
    func changes(after from: Int64?, atLeast version: DataVersion) async throws -> (changes: DataChanges, version: DataVersion) {
        let current = underWay.withLock { reads in
            if let read = reads[from], read.version >= version { return read }
            let read = Read(version: version, task: Task { [readChanges] in try await readChanges(from) })
            reads[from] = read
            return read
        }
        let outcome = await current.task.result
        underWay.withLock { reads in
            if reads[from]?.task == current.task { reads[from] = nil }
        }
        return (try outcome.get(), current.version)
    }
}

/// An owner of answers derived from the data, which a `ChangeFollower` keeps current.
protocol FollowsChanges: AnyObject {
    /// Guards `follower` and the answers.
    var lock: NSLock { get }
    /// Read and written only under `lock`.
    var follower: ChangeFollower { get set }
    /// Drops the answers `changed` can alter; called under `lock`.
    func drop(_ changed: DataChanges, listingMoved: Bool)
}

extension FollowsChanges {
    /// Brings the answers up to `version`, reading what changed since the position they are current at without
    /// holding the lock (a read other callers may share, `ChangeReads`). Answers the position an answer computed
    /// from now on is current at.
    func catchUp(to version: DataVersion, reads: ChangeReads) async throws -> Int64? {
        while true {
            let (from, due) = lock.withLock { (follower.position, follower.isDue(for: version)) }
            guard due else { return from }
            let read = try await reads.changes(after: from, atLeast: version)
            // Not applied when another caller moved the position meanwhile: what it applied may not reach `version`.
            let position: Int64?? = lock.withLock {
                follower.apply(read.changes, readAfter: from, for: read.version) { drop($0, listingMoved: $1) } ? .some(follower.position) : .none
            }
            if case .some(let position) = position { return position }
        }
    }
}
