import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where log lines go: a file descriptor, written in batches. A line of level warning or above is written at
/// once, with every line before it; other lines wait until 32 KiB collect or a tenth of a second has passed
/// since the first of them. One `write` per request line was a tenth of a cached read's time; a process
/// killed outright loses at most that tenth of a second of request lines, never a warning or an error.
public final class LineOutput: Sendable {
    /// Standard error, written out too when the process exits normally.
    public static let standardError: LineOutput = {
        let output = LineOutput(descriptor: STDERR_FILENO)
        atexit { LineOutput.standardError.flush() }
        return output
    }()

    /// Bytes held before they are written without waiting for the timer.
    static let capacity = 32 << 10
    let descriptor: Int32
    /// The longest a line waits.
    let delay: DispatchTimeInterval
    private let state = Mutex(State())

    private struct State {
        var lines: [UInt8] = []
        var flushScheduled = false
    }

    init(descriptor: Int32, delay: DispatchTimeInterval = .milliseconds(100)) {
        self.descriptor = descriptor
        self.delay = delay
    }

    /// Adds a line (with its newline); `urgent` writes it and what waits before it now.
    func append(_ line: [UInt8], urgent: Bool) {
        state.withLock { held in
            held.lines.append(contentsOf: line)
            if urgent || held.lines.count >= Self.capacity {
                writeOut(&held.lines)
            } else if !held.flushScheduled {
                held.flushScheduled = true
                DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + delay) { [self] in
                    state.withLock { held in
                        held.flushScheduled = false
                        writeOut(&held.lines)
                    }
                }
            }
        }
    }

    /// Writes every line waiting.
    public func flush() {
        state.withLock { writeOut(&$0.lines) }
    }

    /// Writes `lines` (under the lock, so lines keep their order) and empties them, keeping their memory.
    private func writeOut(_ lines: inout [UInt8]) {
        lines.withUnsafeBufferPointer { bytes in
            var written = 0
            while written < bytes.count {
                let result = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else { break }
                written += result
            }
        }
        lines.removeAll(keepingCapacity: true)
    }
}
