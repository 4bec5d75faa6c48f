import Foundation
import OakStore

/// Keeps in-memory answers derived from the data current: when the data version moves, reads what changed
/// since the position the answers are current at and hands it to the owner, which drops what it alters.
/// Not thread-safe: its owner calls it under its own lock, which it does not hold while the changes are
/// read (a database round trip for PostgreSQL).
struct ChangeFollower {
    /// The change-log position the owner's answers are current at (nil before the first call).
    private(set) var position: Int64?
    private var checkedVersion: DataVersion?
    private var listingVersion: Int64?

    /// Whether the answers need the changes since `position` to be current at `version`.
    func isDue(for version: DataVersion) -> Bool {
        checkedVersion.map { version > $0 } ?? true
    }

    /// Applies `changed`, read after `from` for `version`: `drop` is given it, with whether the listing
    /// version moved (nothing is dropped on the first call, when nothing is held yet). False, changing
    /// nothing, when another caller moved the position meanwhile.
    mutating func apply(
        _ changed: DataChanges, readAfter from: Int64?, for version: DataVersion, drop: (DataChanges, _ listingMoved: Bool) -> Void
    ) -> Bool {
        guard from == position else { return false }
        if position != nil { drop(changed, changed.listingVersion != listingVersion) }
        (checkedVersion, position, listingVersion) = (version, changed.head, changed.listingVersion)
        return true
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
    /// Brings the answers up to `version`, reading what changed (`changes`, given the position the answers
    /// are current at) without holding the lock. Answers the position an answer computed from now on is
    /// current at.
    func catchUp(to version: DataVersion, changes: (Int64?) async throws -> DataChanges) async throws -> Int64? {
        while true {
            let (due, from) = lock.withLock { (follower.isDue(for: version), follower.position) }
            guard due else { return from }
            let changed = try await changes(from)
            let position: Int64?? = lock.withLock {
                follower.apply(changed, readAfter: from, for: version) { drop($0, listingMoved: $1) } ? .some(follower.position) : .none
            }
            if case .some(let position) = position { return position }
        }
    }
}
