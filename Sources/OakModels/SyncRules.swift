import Foundation

/// The sync rules the server and the offline client share, each defined once: last write wins, and how far
/// a pushed timestamp may run ahead of the server's clock.
public enum SyncRules {
    /// How far in the future a pushed timestamp may be before the server takes its own time instead.
    public static let allowedClockSkew: TimeInterval = 5 * 60

    /// Whether an edit at `time` with `fields` (nil: a delete) beats a copy written at `otherTime` with
    /// `otherFields`: the later write wins; a tie goes to the greater content (`NoteFields.tieBreakKey`), so
    /// every replica picks the same winner whatever the order in which the writes arrive.
    public static func wins(_ time: Date, _ fields: NoteFields?, over otherTime: Date, _ otherFields: NoteFields?) -> Bool {
        if time != otherTime { return time > otherTime }
        return (fields?.tieBreakKey ?? "") > (otherFields?.tieBreakKey ?? "")
    }

    /// The time the server records for a change pushed with `pushed`: the server's `now` when the device's
    /// clock runs more than `allowedClockSkew` ahead, else the pushed time; to the millisecond, as stored.
    public static func recordedTime(of pushed: Date, now: Date) -> Date {
        WireTime.milliseconds(pushed > now.addingTimeInterval(allowedClockSkew) ? now : pushed)
    }

    /// The smallest step of time the rule tells apart: a millisecond, the precision stored and sent.
    public static let tick: TimeInterval = 0.001

    /// A hybrid logical time: `time`, unless that is not later than `seen` (the version a change was made on,
    /// or the latest time a device has seen), when it is a tick after `seen`. A change is never ordered before
    /// what it was made on, however slow the clock that stamped it: a device whose clock runs a minute behind
    /// still writes after the version it edited, and loses to what was written after that version.
    public static func hybridTime(_ time: Date, after seen: Date) -> Date {
        let time = WireTime.milliseconds(time)
        let seen = WireTime.milliseconds(seen)
        return time > seen ? time : seen.addingTimeInterval(tick)
    }
}
