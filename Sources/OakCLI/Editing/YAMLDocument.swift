import Foundation
import Yams

/// The YAML documents the editor shows: a comment naming each field above it, and back to JSON on save.
public enum YAMLDocument {
    /// A field of a document: its key, what it means, and its current value (nil shows as empty).
    public struct Field {
        public var key: String
        public var comment: String
        public var value: Any?

        public init(_ key: String, _ comment: String, _ value: Any?) {
            self.key = key
            self.comment = comment
            self.value = value
        }
    }

    /// The document: `title` lines as comments, then each field under its comment.
    public static func render(title: [String], fields: [Field]) -> String {
        var lines = title.map { "# \($0)" }
        lines.append("# Lines starting with # are ignored. Leave a value empty to clear it; save and quit to apply,")
        lines.append("# quit without saving to change nothing.")
        for field in fields {
            lines.append("")
            lines.append("# \(field.key): \(field.comment)")
            lines.append(rendered(field.key, field.value))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func rendered(_ key: String, _ value: Any?) -> String {
        switch value {
        case nil:
            return "\(key):"
        case let list as [String] where list.isEmpty:
            return "\(key): []"
        default:
            let text = (try? Yams.dump(object: [key: value!], width: -1, allowUnicode: true)) ?? "\(key):"
            return text.trimmingCharacters(in: .newlines)
        }
    }

    /// Booleans are only true and false (YAML 1.1's yes/no/on/off stay text: "No" is a word here), and
    /// nothing is read as a date or a decimal number.
    private static let resolver = try! Resolver.basic
        .appending(.bool, "^(?:true|True|TRUE|false|False|FALSE)$")
        .appending(.int).appending(.null)

    /// The saved document as a JSON object, to decode as a request body is decoded.
    public static func json(_ text: String) throws -> Data {
        guard let object = try load(text) as? [String: Any] else {
            throw CLIError.invalid("The document must be a mapping of fields (key: value lines)")
        }
        return try JSONSerialization.data(withJSONObject: object.mapValues(jsonValue))
    }

    /// Any YAML text (a file of records) as JSON.
    public static func anyJSON(_ text: String) throws -> Data {
        guard let loaded = try load(text) else { throw CLIError.invalid("The file is empty") }
        return try JSONSerialization.data(withJSONObject: jsonValue(loaded))
    }

    private static func load(_ text: String) throws -> Any? {
        do {
            return try Yams.load(yaml: text, resolver)
        } catch {
            throw CLIError.invalid("Not valid YAML: \(error)")
        }
    }

    private static func jsonValue(_ value: Any) -> Any {
        switch value {
        case let list as [Any]: list.map(jsonValue)
        case let map as [String: Any]: map.mapValues(jsonValue)
        case is NSNull, is Bool, is Int, is String: value
        default: "\(value)"
        }
    }
}
