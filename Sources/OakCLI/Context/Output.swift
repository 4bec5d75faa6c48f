import Foundation

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

    public static let standardOutput = OutputStream { FileHandle.standardOutput.write(Data($0.utf8)) }
    public static let standardError = OutputStream { FileHandle.standardError.write(Data($0.utf8)) }

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
