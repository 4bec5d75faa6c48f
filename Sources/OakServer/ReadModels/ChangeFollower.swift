import OakStore

/// Keeps in-memory answers derived from the data current: when the data version moves, reads what changed
/// since the position the answers are current at and hands it to the owner, which drops what it alters.
/// Not thread-safe: its owner calls it under its own lock.
struct ChangeFollower {
    /// The change-log position the owner's answers are current at (nil before the first call).
    private(set) var position: Int64?
    private var checkedVersion: DataVersion?
    private var listingVersion: Int64?

    /// Brings the owner up to `version`: when the data moved since the last call, `changes` is asked what
    /// changed after `position` and `drop` is given it, with whether the listing version moved (nothing is
    /// dropped on the first call, when nothing is held yet). Answers the new position.
    mutating func follow(
        to version: DataVersion, changes: (Int64?) throws -> DataChanges, drop: (DataChanges, _ listingMoved: Bool) -> Void
    ) throws -> Int64? {
        if let checked = checkedVersion, version <= checked { return position }
        let changed = try changes(position)
        if position != nil { drop(changed, changed.listingVersion != listingVersion) }
        (checkedVersion, position, listingVersion) = (version, changed.head, changed.listingVersion)
        return position
    }
}
