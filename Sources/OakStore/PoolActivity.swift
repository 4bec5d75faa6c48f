import Foundation
import OakModels

/// Counts a store's reads and writes in flight, and the writes made through it.
package final class PoolActivity: @unchecked Sendable {
    private let lock = NSLock()
    private var reads = 0
    private var writes = 0
    private var generation: UInt64 = 0
    /// The change-log head last read, and when (seconds, monotonic), to notice other processes' writes.
    private var observedHead: Int64 = -1
    private var observedAt: Double = -.infinity

    package init() {}

    /// Counts a write, and makes the change-log head due to be read again: the write moved it, and a head read
    /// before the write would otherwise change the version a second time when it is next read, with no new write.
    package func bumpGeneration() {
        lock.withLock {
            generation &+= 1
            observedAt = -.infinity
        }
    }

    /// The writes made through the store so far.
    package var writeCount: UInt64 { lock.withLock { generation } }

    /// The in-process write count, and whether the change-log head is due to be read again.
    package func generationState(now: Double, refreshAfter: Double) -> (generation: UInt64, head: Int64, due: Bool) {
        lock.withLock { (generation, observedHead, now - observedAt >= refreshAfter) }
    }

    /// Records the change-log head read at `now`, by a read that started when the write count was `generation`.
    /// When a write came in between, the head may predate it, so it stays due.
    package func observe(head: Int64, at now: Double, generation readAt: UInt64) {
        lock.withLock {
            observedHead = head
            observedAt = generation == readAt ? now : -.infinity
        }
    }

    /// Connections leased (or given up on), and the seconds spent waiting for them.
    private var waits = 0
    private var waitSeconds = 0.0
    /// Database failures by kind (`PostgresFailure`'s raw values), retried transactions included.
    private var failures: [String: Int] = [:]

    package func recordWait(_ duration: Duration) {
        lock.withLock {
            waits += 1
            waitSeconds += duration.inSeconds
        }
    }

    package func recordFailure(_ kind: String) {
        lock.withLock { failures[kind, default: 0] += 1 }
    }

    /// The waits and failures so far.
    package var waitsAndFailures: (waits: Int, waitSeconds: Double, failures: [String: Int]) {
        lock.withLock { (waits, waitSeconds, failures) }
    }

    package func begin(write: Bool) { lock.withLock { if write { writes += 1 } else { reads += 1 } } }
    package func end(write: Bool) { lock.withLock { if write { writes -= 1 } else { reads -= 1 } } }
    package var current: (reads: Int, writes: Int) { lock.withLock { (reads, writes) } }
}
