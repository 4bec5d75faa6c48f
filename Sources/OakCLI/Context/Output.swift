import Foundation

#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
#endif

/// How read commands print: aligned text for people, or one JSON document (`--json`) for scripts.
public enum OutputFormat: Sendable {
    case text
    case json
}

/// Where a command writes: standard output and error by default; tests capture them.
public struct OutputStream: Sendable {
    private let writeText: @Sendable (String) -> Void

    public init(_ write: @escaping @Sendable (String) -> Void) {
        writeText = write
    }

    public static let standardOutput = OutputStream { writeAll($0, to: STDOUT_FILENO) }
    public static let standardError = OutputStream { writeAll($0, to: STDERR_FILENO) }

    /// Writes all of `text` to a standard stream, unbuffered. When nobody reads it any more (`oak … | head`),
    /// the process ends as Unix tools do, by SIGPIPE and without a word; Foundation's `FileHandle.write`
    /// stopped it with a crash report. Any other failure (a full disk) ends it with exit code 1 and, for
    /// standard output, one line on standard error: what was written is not all there.
    private static func writeAll(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let written = systemWrite(descriptor, base + offset, bytes.count - offset)
                if written >= 0 {
                    offset += written
                } else if errno == EPIPE {
                    signal(SIGPIPE, SIG_DFL)
                    raise(SIGPIPE)
                    exit(128 + SIGPIPE)  // Reached only if the signal is blocked.
                } else if errno != EINTR {
                    if descriptor != STDERR_FILENO {
                        writeAll("error: cannot write to standard output: \(String(cString: strerror(errno)))\n", to: STDERR_FILENO)
                    }
                    exit(1)
                }
            }
        }
    }

    /// Writes `text` and a newline.
    public func line(_ text: String = "") {
        writeText(text + "\n")
    }

    /// Writes `text` as it is.
    public func write(_ text: String) {
        writeText(text)
    }
}

/// Renders rows as columns aligned on the widest cell, with a header.
public struct Table {
    public var header: [String]
    public var rows: [[String]] = []

    public init(_ header: String...) {
        self.header = header
    }

    public mutating func add(_ cells: String...) {
        rows.append(cells)
    }

    public var text: String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}

/// A progress bar on a terminal's stderr (nothing when stderr is not a terminal).
public final class ProgressBar: @unchecked Sendable {
    private let stream: OutputStream
    private let label: String
    private let enabled: Bool
    private let lock = NSLock()
    private var lastPercent = -1

    public init(_ label: String, stream: OutputStream, enabled: Bool) {
        self.label = label
        self.stream = stream
        self.enabled = enabled
    }

    public func update(done: Int, total: Int) {
        guard enabled, total > 0 else { return }
        let percent = done * 100 / total
        lock.withLock {
            guard percent != lastPercent else { return }
            lastPercent = percent
            let filled = percent * 30 / 100
            stream.write("\r\(label) [\(String(repeating: "#", count: filled))\(String(repeating: " ", count: 30 - filled))] \(percent)% (\(done)/\(total))")
            if done == total { stream.write("\n") }
        }
    }
}

/// JSON as the CLI prints it: sorted keys, indented, slashes unescaped (stable for scripts and diffs).
public enum CLIJSON {
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return encoder
    }()

    public static func text(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
