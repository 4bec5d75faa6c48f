import Dispatch
import Foundation
import OakModels
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where log lines go: a file descriptor, written in batches. A line of level warning or above is written at
/// once, with every line before it; other lines wait until 32 KiB collect or a tenth of a second has passed
/// since the first of them, because a `write` per request line would be a noticeable part of a cached read's
/// time (see BENCHMARKS.md, "Server round 2", item 17); a process killed outright loses at most that tenth of
/// a second of request lines, never a warning or an error.
///
/// Lines are written outside the lock that adds them, so a slow or stalled output (a full pipe whose reader
/// stopped) holds up only the thread whose write waits: the others keep adding lines while it does, and it
/// writes them before it stops. Past 1 MiB waiting, lines are dropped and counted, and a warning line says how
/// many before the next lines written. (The thread that fills a buffer writes it, not a background thread,
/// which costs more CPU per cached read: see BENCHMARKS.md, "Server round 2", item 17.)
public final class LineOutput: Sendable {
    /// Standard error, written out too when the process exits normally.
    public static let standardError: LineOutput = {
        let output = LineOutput(descriptor: STDERR_FILENO)
        atexit { LineOutput.standardError.flush() }
        return output
    }()

    /// Bytes held before they are written without waiting for the timer.
    static let capacity = 32 << 10
    /// Bytes held, while a write is under way, past which new lines are dropped.
    static let limit = 1 << 20
    let descriptor: Int32
    /// The longest a line waits.
    let delay: DispatchTimeInterval
    private let state = Mutex(State())
    /// Held by the one write under way.
    private let writer = Mutex(())

    private struct State {
        var lines: [UInt8] = []
        var flushScheduled = false
        /// Whether a write is under way (it takes what is added before it stops).
        var writing = false
        /// Lines dropped since the last write, the output not keeping up.
        var dropped = 0
    }

    init(descriptor: Int32, delay: DispatchTimeInterval = .milliseconds(100)) {
        self.descriptor = descriptor
        self.delay = delay
    }

    /// Adds a line (with its newline); `urgent` writes it and what waits before it now.
    func append(_ line: [UInt8], urgent: Bool) {
        let writesNow = state.withLock { held -> Bool in
            guard held.lines.count + line.count <= Self.limit else {
                held.dropped += 1
                return false
            }
            held.lines.append(contentsOf: line)
            if urgent || held.lines.count >= Self.capacity { return true }
            if !held.flushScheduled {
                held.flushScheduled = true
                DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + delay) { [self] in
                    state.withLock { $0.flushScheduled = false }
                    writeUnlessWriting()
                }
            }
            return false
        }
        if writesNow { writeUnlessWriting() }
    }

    /// Writes every line waiting, after the write under way if any.
    public func flush() {
        writer.withLock { _ in
            state.withLock { $0.writing = true }
            writeWaiting()
        }
    }

    /// Writes the lines waiting, unless a write is under way: that one writes them before it stops.
    private func writeUnlessWriting() {
        let starts = state.withLock { held in
            guard !held.writing, !held.lines.isEmpty || held.dropped > 0 else { return false }
            held.writing = true
            return true
        }
        if starts { writer.withLock { _ in writeWaiting() } }
    }

    /// Takes the lines waiting and writes them, until none are left; then no write is under way. Called by the
    /// holder of `writer`, with `writing` set.
    private func writeWaiting() {
        while let bytes = state.withLock({ held -> [UInt8]? in
            guard !held.lines.isEmpty || held.dropped > 0 else {
                held.writing = false
                return nil
            }
            var taken: [UInt8] = []
            if held.dropped > 0 {
                WireTime.appendPrecise(Date(), to: &taken)
                taken.append(contentsOf: " warning oak.log: \(held.dropped) log lines dropped: the log output did not keep up\n".utf8)
                held.dropped = 0
            }
            taken.append(contentsOf: held.lines)
            held.lines.removeAll(keepingCapacity: true)
            return taken
        }) {
            writeOut(bytes)
        }
    }

    private func writeOut(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { bytes in
            var written = 0
            while written < bytes.count {
                let result = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else { break }
                written += result
            }
        }
    }
}
