import Foundation
import Logging
import OakModels

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes each log event as one line, `2025-01-10T14:20:00.123Z info oak.server: request key=value …`, with
/// metadata keys sorted and values quoted when they hold spaces, quotes or `=`. It is the server's default
/// because it is cheap on the per-request path: no date formatter, no merged metadata dictionary, one
/// `write` per line (swift-log's `StreamLogHandler` cost a third of a cached read's time).
public struct LineLogHandler: LogHandler {
    public let label: String
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    /// The file descriptor written to.
    let output: Int32

    /// A handler writing to standard error.
    public init(label: String) {
        self.init(label: label, output: STDERR_FILENO)
    }

    init(label: String, output: Int32) {
        self.label = label
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        // The event's metadata wins over the provider's, which wins over the handler's; no merged dictionary.
        let provided = metadataProvider?.get() ?? [:]
        var entries: [(key: String, value: Logger.MetadataValue)] = Array(event.metadata ?? [:])
        entries.reserveCapacity(entries.count + provided.count + metadata.count)
        for (key, value) in provided where event.metadata?[key] == nil { entries.append((key, value)) }
        for (key, value) in metadata where event.metadata?[key] == nil && provided[key] == nil { entries.append((key, value)) }
        entries.sort { $0.key < $1.key }
        var line = WireTime.formatPrecise(Date())
        line.reserveCapacity(160)
        line += " "
        line += event.level.rawValue
        line += " "
        line += label
        line += ": "
        line += event.message.description
        for (key, value) in entries {
            line += " "
            line += key
            line += "="
            line += Self.quotedIfNeeded(value.description)
        }
        line += "\n"
        line.withUTF8 { bytes in
            var written = 0
            while written < bytes.count {
                let result = write(output, bytes.baseAddress! + written, bytes.count - written)
                guard result > 0 else { return }
                written += result
            }
        }
    }

    /// A value as is, or in quotes (with `"` and `\` escaped) when it would not read back as one token.
    static func quotedIfNeeded(_ value: String) -> String {
        guard value.isEmpty || value.utf8.contains(where: { $0 <= 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "=") }) else {
            return value
        }
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return "\"\(escaped)\""
    }
}
