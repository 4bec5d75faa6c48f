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
    /// The read of what changed after `position` under way, which every caller that finds the answers due shares:
    /// under a stream of writes, concurrent requests would each read the same changes (a round trip to
    /// PostgreSQL, queued for a pooled connection) and all but one find their read superseded and read again.
    /// Its `version` is the data version its starter saw before it began, so the changes run at least up to it.
    var reading: (from: Int64?, version: DataVersion, task: Task<DataChanges, any Error>)?

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
    ///
    /// A caller that finds the answers due while a read of the changes after the same position is under way, begun
    /// by a caller that had seen at least `version`, waits for that read instead of making its own
    /// (`ChangeFollower.reading`): its changes run at least up to `version`. Otherwise it begins the read others
    /// then share.
    func catchUp(to version: DataVersion, changes: @escaping @Sendable (Int64?) async throws -> DataChanges) async throws -> Int64? {
        while true {
            let step: (from: Int64?, read: (version: DataVersion, task: Task<DataChanges, any Error>)?) = lock.withLock {
                guard follower.isDue(for: version) else { return (follower.position, nil) }
                let from = follower.position
                if let reading = follower.reading, reading.from == from, reading.version >= version {
                    return (from, (reading.version, reading.task))
                }
                let task = Task { try await changes(from) }
                follower.reading = (from, version, task)
                return (from, (version, task))
            }
            guard let read = step.read else { return step.from }
            let outcome = await read.task.result
            let position: Int64?? = try lock.withLock {
                if let reading = follower.reading, reading.from == step.from, reading.version == read.version { follower.reading = nil }
                return follower.apply(try outcome.get(), readAfter: step.from, for: read.version) { drop($0, listingMoved: $1) }
                    ? .some(follower.position) : .none
            }
            if case .some(let position) = position { return position }
        }
    }
}
