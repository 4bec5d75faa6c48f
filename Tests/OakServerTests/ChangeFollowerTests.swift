import Foundation
import OakModels
import Synchronization
import Testing

@testable import OakServer
@testable import OakStore

/// `FollowsChanges.catchUp`: concurrent requests that find the answers due share one read of what changed, and a
/// request never takes a read begun before the version it saw.
@Suite("Change follower")
struct ChangeFollowerTests {
    /// An owner of answers that records what it was told to drop.
    final class Answers: FollowsChanges, @unchecked Sendable {
        let lock = NSLock()
        var follower = ChangeFollower()
        var dropped: [Set<String>] = []
        func drop(_ changed: DataChanges, listingMoved: Bool) { dropped.append(changed.species) }
    }

    /// A change log whose reads are counted and can be held until released.
    final class Log: Sendable {
        let state = Mutex<(head: Int64, reads: Int, held: Bool)>((0, 0, false))

        func write() -> DataVersion {
            state.withLock { state in
                state.head += 1
                return DataVersion(writes: UInt64(state.head), changeLogHead: state.head)
            }
        }

        func changes(after position: Int64?) async throws -> DataChanges {
            let head = state.withLock { state in
                state.reads += 1
                return state.head
            }
            while state.withLock({ $0.held }) { try await Task.sleep(for: .milliseconds(5)) }
            var changes = DataChanges(head: head, listingVersion: 0)
            if let position, position < head { changes.species = ["alba"] }
            return changes
        }
    }

    @Test("concurrent requests that find the answers due after a write share one read of the changes")
    func concurrentCatchUpsShareOneRead() async throws {
        let (answers, log) = (Answers(), Log())
        let reads = ChangeReads(log.changes(after:))
        _ = try await answers.catchUp(to: log.write(), reads: reads)
        let version = log.write()
        log.state.withLock { $0.held = true }
        try await withThrowingTaskGroup(of: Int64?.self) { group in
            for _ in 0..<32 { group.addTask { try await answers.catchUp(to: version, reads: reads) } }
            try await Task.sleep(for: .milliseconds(50))
            log.state.withLock { $0.held = false }
            for try await position in group { #expect(position == 2) }
        }
        #expect(log.state.withLock { $0.reads } == 2, "one read to start, one shared by the 32 requests")
        #expect(answers.dropped == [["alba"]])
    }

    @Test("two owners of answers (the response cache and the species records) due after one write share one read")
    func ownersShareOneRead() async throws {
        let (cache, records, log) = (Answers(), Answers(), Log())
        let reads = ChangeReads(log.changes(after:))
        let first = log.write()
        _ = try await cache.catchUp(to: first, reads: reads)
        _ = try await records.catchUp(to: first, reads: reads)
        let before = log.state.withLock { $0.reads }
        let version = log.write()
        log.state.withLock { $0.held = true }
        try await withThrowingTaskGroup(of: Int64?.self) { group in
            for owner in [cache, records] {
                for _ in 0..<16 { group.addTask { try await owner.catchUp(to: version, reads: reads) } }
            }
            try await Task.sleep(for: .milliseconds(50))
            log.state.withLock { $0.held = false }
            for try await position in group { #expect(position == 2) }
        }
        #expect(log.state.withLock { $0.reads } == before + 1, "one read for both owners and their 32 requests")
        #expect(cache.dropped.last == ["alba"] && records.dropped.last == ["alba"])
    }

    @Test("a request that saw a later version than the read under way began with does not take that read's changes")
    func laterVersionReadsAgain() async throws {
        let (answers, log) = (Answers(), Log())
        let reads = ChangeReads(log.changes(after:))
        _ = try await answers.catchUp(to: log.write(), reads: reads)
        let first = log.write()
        log.state.withLock { $0.held = true }
        let early = Task { try await answers.catchUp(to: first, reads: reads) }
        try await Task.sleep(for: .milliseconds(30))
        // A write after the read began: a request that saw it must not be told the answers are current.
        let later = log.write()
        let late = Task { try await answers.catchUp(to: later, reads: reads) }
        try await Task.sleep(for: .milliseconds(30))
        log.state.withLock { $0.held = false }
        // The early request is current at 2 or, when the late read was applied first, at 3.
        #expect(try await early.value ?? 0 >= 2)
        #expect(try await late.value == 3)
        #expect(answers.follower.position == 3)
        // Its own read, and one more when the early read was applied first (its changes run only up to 2).
        #expect((3...4).contains(log.state.withLock { $0.reads }), "the late request read again")
    }

    @Test("an answer computed while changes were applied is kept when none of them alters it, as far back as the changes kept reach")
    func answersComputedWhileChangesWereApplied() {
        var follower = ChangeFollower()
        var positions: [Int64?] = []
        func apply(_ species: Set<String>, everything: Bool = false) {
            let (from, head) = (follower.position, Int64(positions.count + 1))
            let changes = DataChanges(head: head, listingVersion: 0, everything: everything, species: species)
            #expect(follower.apply(changes, readAfter: from, for: DataVersion(writes: UInt64(head), changeLogHead: head)) { _, _ in })
            positions.append(follower.position)
        }
        let altersRobur: (DataChanges, Bool) -> Bool = { changes, _ in changes.species.contains("robur") }
        apply([])
        let filled = follower.position
        #expect(follower.isCurrent(filledAt: filled, unlessAlteredBy: altersRobur), "nothing applied since")
        apply(["alba"])
        apply(["alba"])
        #expect(follower.isCurrent(filledAt: filled, unlessAlteredBy: altersRobur), "changes of alba cannot alter an answer about robur")
        let beforeRobur = follower.position
        apply(["robur"])
        #expect(!follower.isCurrent(filledAt: beforeRobur, unlessAlteredBy: altersRobur))
        #expect(!follower.isCurrent(filledAt: filled, unlessAlteredBy: altersRobur))
        let afterRobur = follower.position
        apply(["alba"], everything: true)
        #expect(!follower.isCurrent(filledAt: afterRobur, unlessAlteredBy: altersRobur), "a change of everything alters every answer")
        let longAgo = follower.position
        for _ in 0..<40 { apply(["alba"]) }
        #expect(!follower.isCurrent(filledAt: longAgo, unlessAlteredBy: altersRobur), "older than the changes kept")
        #expect(follower.isCurrent(filledAt: positions[positions.count - 20], unlessAlteredBy: altersRobur))
    }

    @Test("a catch-up that finds nothing changed (the version moved by a write that changed nothing) drops no answer, and one after a change drops it")
    func nothingChangedDropsNothing() async throws {
        let (answers, log) = (Answers(), Log())
        let reads = ChangeReads(log.changes(after:))
        let first = log.write()
        _ = try await answers.catchUp(to: first, reads: reads)
        let unchanged = DataVersion(writes: first.writes + 1, changeLogHead: first.changeLogHead)
        #expect(try await answers.catchUp(to: unchanged, reads: reads) == first.changeLogHead)
        #expect(answers.dropped.isEmpty, "nothing to drop, and no walk over the answers to find it")
        #expect(log.state.withLock { $0.reads } == 2, "the moved version was read")
        #expect(try await answers.catchUp(to: log.write(), reads: reads) == 2)
        #expect(answers.dropped == [["alba"]])
    }
}
