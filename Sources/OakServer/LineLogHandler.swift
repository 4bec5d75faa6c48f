import Foundation
import Logging
import OakModels

/// Writes each log event as one line, `2025-01-10T14:20:00.123Z info oak.server: request key=value …`, with
/// metadata keys sorted and values quoted when they hold spaces, quotes or `=`. It is the server's default
/// because it is cheap on the per-request path: no date formatter, no merged metadata dictionary, lines
/// built as bytes and written in batches (`LineOutput`), where swift-log's `StreamLogHandler` would be a large
/// part of a cached read's time (see BENCHMARKS.md, "Where the targets stand", item 9).
public struct LineLogHandler: LogHandler {
    public let label: String
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    /// The handler's metadata but `request_id`.
    private var otherMetadata: Logger.Metadata = [:]
    /// `request_id`, which every request's logger sets (`ResponseFinisher.logger(_:for:)`): kept out of the dictionary, so
    /// that setting it copies and changes no dictionary (see BENCHMARKS.md, "Server round 2", item 20).
    private var requestID: Logger.MetadataValue?
    static let requestIDKey = "request_id"
    /// Hummingbird's own id of a request, which `request_id` replaces: not kept.
    static let hummingbirdRequestIDKey = "hb.request.id"
    /// Where the lines go.
    let output: LineOutput

    /// A handler writing to standard error.
    public init(label: String) {
        self.init(label: label, output: .standardError)
    }

    init(label: String, output: LineOutput) {
        self.label = label
        self.output = output
    }

    public var metadata: Logger.Metadata {
        get {
            var all = otherMetadata
            if let requestID { all[Self.requestIDKey] = requestID }
            return all
        }
        set {
            requestID = newValue[Self.requestIDKey]
            otherMetadata = newValue.filter { $0.key != Self.requestIDKey && $0.key != Self.hummingbirdRequestIDKey }
        }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { key == Self.requestIDKey ? requestID : otherMetadata[key] }
        set {
            switch key {
            case Self.requestIDKey: requestID = newValue
            case Self.hummingbirdRequestIDKey: break
            default: otherMetadata[key] = newValue
            }
        }
    }

    public func log(event: LogEvent) {
        writeLine(event.level, event.message.description, sortedEntries(event.metadata))
    }

    /// Logs a line without a `Logger.Metadata` dictionary: what the per-request line uses, since building
    /// and sorting that dictionary would be most of the line's cost (see BENCHMARKS.md, "Server round 2", item
    /// 12). `fields` win over the handler's metadata.
    func log(level: Logger.Level, _ message: String, fields: [(key: String, value: Logger.MetadataValue)]) {
        guard level >= logLevel else { return }
        writeLine(level, message, sortedEntries(fields))
    }

    private func writeLine(_ level: Logger.Level, _ message: String, _ entries: [(key: String, value: Logger.MetadataValue)]) {
        var line: [UInt8] = []
        line.reserveCapacity(256)
        WireTime.appendPrecise(Date(), to: &line)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: level.rawValue.utf8)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: label.utf8)
        line.append(contentsOf: ": ".utf8)
        line.append(contentsOf: message.utf8)
        for (key, value) in entries {
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: key.utf8)
            line.append(UInt8(ascii: "="))
            let text: String
            if case .string(let string) = value { text = string } else { text = value.description }
            line.append(contentsOf: Self.quotedIfNeeded(text).utf8)
        }
        line.append(UInt8(ascii: "\n"))
        output.append(line, urgent: level >= .warning)
    }

    /// An event's metadata, then the provider's and the handler's for keys the event does not set, sorted by
    /// key; no merged dictionary.
    private func sortedEntries(_ eventMetadata: Logger.Metadata?) -> [(key: String, value: Logger.MetadataValue)] {
        sortedEntries(eventMetadata.map { Array($0) } ?? [])
    }

    private func sortedEntries(_ first: [(key: String, value: Logger.MetadataValue)]) -> [(key: String, value: Logger.MetadataValue)] {
        let provided = metadataProvider?.get() ?? [:]
        var entries = first
        entries.reserveCapacity(first.count + provided.count + otherMetadata.count + 1)
        let isSet = { (key: String) in first.contains { $0.key == key } }
        for (key, value) in provided where !isSet(key) { entries.append((key, value)) }
        for (key, value) in otherMetadata where !isSet(key) && provided[key] == nil { entries.append((key, value)) }
        if let requestID, !isSet(Self.requestIDKey), provided[Self.requestIDKey] == nil { entries.append((Self.requestIDKey, requestID)) }
        entries.sort { $0.key < $1.key }
        return entries
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
