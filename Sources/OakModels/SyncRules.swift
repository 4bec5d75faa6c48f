import Foundation

/// The sync rule the server, every store backend and the offline client share, each part defined once (the
/// README's "The sync rule"): hybrid logical times, per-field last write wins (`merge`), deletes
/// (`afterDelete`), edits (`edit`) and fast-forwards (`made`), and how far a pushed time may run ahead of the
/// server's clock.
public enum SyncRules {
    /// How far in the future a pushed timestamp may be before the server takes its own time instead: a clock
    /// set wrong (a year ahead) cannot win every conflict. Wide enough that a phone's clock minutes off (up to
    /// ten, which the simulator exercises) is never clamped: a clamped time would depend on when the change
    /// reached the server, and hybrid logical times carry such a clock's lead to the devices that see its notes.
    public static let allowedClockSkew: TimeInterval = 15 * 60

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
        return time > seen ? time : WireTime.milliseconds(seen.addingTimeInterval(tick))
    }
}
