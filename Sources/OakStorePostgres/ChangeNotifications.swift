import Logging
import OakStore
import PostgresNIO
import Synchronization

/// The change log's head as this instance knows it without a round trip per request. Every transaction that
/// moves the head notifies the instances listening on `channel` at its commit, with the head it left (the
/// trigger of migration v4, so writes by psql and other tools notify too); the head a notification carries
/// stays known until the next one, as does the head a write through this instance left (`wrote(leaving:)`),
/// whose own notification then moves nothing. PostgreSQL delivers notifications in commit order, and writers take
/// the head in commit order (see `PostgresSchema`), so a head heard is one every commit up to it is
/// visible at.
///
/// How stale an answer can be: a write through another instance is seen once its notification has arrived
/// (PostgreSQL sends it at the commit). When notifications cannot arrive (the listening connection is lost,
/// or being opened again) nothing is known and every request reads the head, as without notifications. A
/// head stays known for `longestTrust` at most, and is then read again, which bounds the staleness if
/// notifications stop arriving unnoticed (a connection that dies without a reset, a pooler that drops them).
final class ChangeNotifications: Sendable {
    /// The channel the trigger notifies (migration v4).
    static let channel = "oak_changes"
    /// The listening connection's `application_name`, by which operators (and tests) can find it.
    static let applicationName = "oak change notifications"
    /// The longest a head read or heard stays known.
    static let longestTrust: Duration = .seconds(1)

    private struct State {
        /// Whether notifications arrive: the connection is open and its `LISTEN` acknowledged.
        var listening = false
        /// Moves with every notification, connection and loss: a head read that started before the last
        /// move may be older than what the move announced, and is not kept.
        var epoch: UInt64 = 0
        var head: Int64?
        /// The highest head read, heard or left by a write here since notifications started to arrive: a
        /// notification delivered after a read or a write that saw later commits must not take the head back.
        var floor: Int64?
        /// When the kept head was read (its read started), heard or left by a write here.
        var since = ContinuousClock.now
        /// Notifications heard since the start, and the highest head one announced.
        var heard = 0
        var headHeard: Int64?
        /// The highest head read, heard or left by a write here since the start, never forgotten: no data version
        /// handed out is past it.
        var highestHead: Int64?

        /// Knows the head from now on as `head`, or as the floor when that is higher: never back.
        mutating func knowAtLeast(_ head: Int64) {
            let known = max(floor ?? head, head)
            (self.head, floor, since) = (known, known, .now)
            noteHighest(known)
        }

        mutating func noteHighest(_ head: Int64) {
            highestHead = max(highestHead ?? head, head)
        }
    }

    /// When a head read started, for `keep(_:readSince:)`.
    struct ReadStart {
        fileprivate let epoch: UInt64
        fileprivate let at: ContinuousClock.Instant
    }

    private let state = Mutex(State())

    /// The head last read or heard, while notifications arrive and within `longestTrust` of it; else nil.
    var knownHead: Int64? {
        state.withLock { state in
            guard state.listening, let head = state.head, ContinuousClock.now - state.since < Self.longestTrust else { return nil }
            return head
        }
    }

    /// `State.highestHead`.
    var highestHead: Int64? {
        state.withLock { $0.highestHead }
    }

    /// Marks the start of a head read (before its statement is sent).
    func headReadStarts() -> ReadStart {
        state.withLock { ReadStart(epoch: $0.epoch, at: .now) }
    }

    /// Keeps `head`, read from `start` on, unless notifications do not arrive or one came since then.
    func keep(_ head: Int64, readSince start: ReadStart) {
        state.withLock { state in
            state.noteHighest(head)
            guard state.listening, state.epoch == start.epoch else { return }
            // Exactly what was read, even below the floor: a database restored to an earlier head.
            state.head = head
            state.floor = head
            state.since = start.at
        }
    }

    /// This instance committed (or tried) a write, which left the head `head` when it is known (read on its connection
    /// after its commit, so at or past its own changes, `ChangesAfterWrites`): it is known from now on, so the notification of the commit, when it comes,
    /// announces the head already known, and a write moves the version once, not a second time when it is heard.
    /// When it is not known the head this instance knew is behind the write, and the next version reads it. Either
    /// way a head read under way is not kept.
    func wrote(leaving head: Int64?) {
        state.withLock { state in
            state.epoch &+= 1
            guard state.listening, let head else {
                state.head = nil
                return
            }
            // A notification of a later commit may have come before this.
            state.knowAtLeast(head)
        }
    }

    /// Whether notifications arrive, how many were heard and the highest head announced: for metrics.
    var status: ChangeNotificationStatus {
        state.withLock { ChangeNotificationStatus(listening: $0.listening, heard: $0.heard, headHeard: $0.headHeard) }
    }

    /// A commit announced the head `payload`: it is known from now on (a head read under way is not kept). The
    /// head never moves back here (a notification of an earlier commit may come after a read that saw later
    /// ones); a database restored to an earlier head is read again once the known one has been trusted its while.
    private func heard(_ payload: String) {
        state.withLock { state in
            state.epoch &+= 1
            state.heard += 1
            state.listening = true
            guard let announced = Int64(payload) else {
                state.head = nil
                return
            }
            state.knowAtLeast(announced)
            state.headHeard = max(state.headHeard ?? announced, announced)
        }
    }

    /// Forgets the head: notifications start or stop arriving.
    private func forget(listening: Bool) {
        state.withLock { state in
            state.epoch &+= 1
            state.head = nil
            state.floor = nil
            state.listening = listening
        }
    }

    /// Listens until the task is cancelled: connects with `configuration`, listens, keeps the head every
    /// notification announces, and after a loss connects again (0.1 s later, doubling to 2 s while it keeps failing).
    func run(configuration: PostgresConnection.Configuration, logger: Logger) async {
        var pause = Duration.milliseconds(100)
        // Whether the loss was logged: a database away for minutes is told once, and its return once.
        var lossLogged = false
        while !Task.isCancelled {
            var connection: PostgresConnection?
            var failure: (any Error)?
            do {
                let opened = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                connection = opened
                try await opened.listen(on: Self.channel) { notifications in
                    forget(listening: true)
                    pause = .milliseconds(100)
                    if lossLogged { logger.notice("Change notifications are back") }
                    lossLogged = false
                    for try await notification in notifications { heard(notification.payload) }
                }
            } catch {
                failure = error
            }
            forget(listening: false)
            try? await connection?.close()
            if Task.isCancelled { return }
            if !lossLogged {
                logger.warning(
                    "Change notifications lost; every request reads the change log's head until they are back",
                    metadata: ["error": "\(failure.map { String(reflecting: $0) } ?? "the connection ended")"])
                lossLogged = true
            }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(2))
        }
    }
}
