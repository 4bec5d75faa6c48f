import Crypto
import Foundation
import OakModels

/// An edit form of the pages: the fields of one kind of record, each under the name the API's JSON gives it, so a
/// submitted form becomes the very request body the API takes (`requestBody`) and is decoded and validated by the
/// same code, with the same messages. A form shows a record from its API encoding (`values(of:)`).
public struct EditForm: Sendable {
    /// One field: its API name, its label, how it is edited.
    public struct Field: Sendable {
        public enum Kind: Sendable {
            /// One line of text.
            case line
            /// Markdown over several lines.
            case text
            /// A list of names, one per line.
            case list
            /// Links, one per line: a URL, or a name, `|`, and a URL.
            case links
            /// A yes/no box.
            case flag
            /// A whole number.
            case number
            /// One of a fixed set (an empty choice clears it); the API takes the values as numbers or as text.
            case choice([Choice], numbers: Bool = false)
        }

        public struct Choice: Sendable {
            public let value: String
            public let label: String

            public init(value: String, label: String) {
                self.value = value
                self.label = label
            }
        }

        public let key: String
        public let label: String
        public let kind: Kind
        public let hint: String?

        public init(_ key: String, _ label: String, _ kind: Kind = .line, hint: String? = nil) {
            self.key = key
            self.label = label
            self.kind = kind
            self.hint = hint
        }
    }

    public let fields: [Field]

    public init(_ fields: [Field]) {
        self.fields = fields
    }

    /// The text each field of the form shows for a record, from its API encoding.
    public func values(of record: some Encodable) -> [String: String] {
        guard let data = try? JSONEncoder().encode(record), case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { return [:] }
        var values: [String: String] = [:]
        for field in fields {
            values[field.key] = Self.text(of: object[field.key] ?? .null, as: field.kind)
        }
        return values
    }

    /// The API request body of a submitted form: every field of the form, an empty one as `null` (it clears the
    /// field; an unticked box is `false`). A number that is not one is sent as the text, so the API's decoder names
    /// the field.
    public func requestBody(_ submitted: [String: String]) -> JSONValue {
        var body: [String: JSONValue] = [:]
        for field in fields {
            body[field.key] = Self.json(submitted[field.key] ?? "", as: field.kind)
        }
        return .object(body)
    }

    /// A short digest of the fields' texts: the form's version of the record. A form is saved only over the record
    /// it was opened on (the pages' `If-Match`): when another tab or client changed one of these fields in between,
    /// the digests differ.
    public func version(of values: [String: String]) -> String {
        var hash = SHA256()
        for field in fields {
            hash.update(data: Data(field.key.utf8))
            hash.update(data: [0])
            hash.update(data: Data((values[field.key] ?? "").utf8))
            hash.update(data: [0])
        }
        return hash.finalize().prefix(16).hexString
    }

    private static func text(of value: JSONValue, as kind: Field.Kind) -> String {
        switch (kind, value) {
        case (_, .null): return ""
        case (.flag, .bool(let flag)): return flag ? "on" : ""
        case (.list, .array(let items)):
            return items.compactMap { if case .string(let text) = $0 { text } else { nil } }.joined(separator: "\n")
        case (.links, .array(let items)):
            return items.compactMap(linkLine).joined(separator: "\n")
        case (_, .string(let text)): return text
        case (_, .number(let number)): return number.rounded() == number ? String(Int64(number)) : String(number)
        case (_, .bool(let flag)): return flag ? "on" : ""
        default: return ""
        }
    }

    private static func linkLine(_ value: JSONValue) -> String? {
        switch value {
        case .string(let url): return url
        case .object(let fields):
            guard case .string(let url)? = fields["url"] else { return nil }
            if case .string(let name)? = fields["name"], !name.isEmpty { return "\(name) | \(url)" }
            return url
        default: return nil
        }
    }

    private static func json(_ text: String, as kind: Field.Kind) -> JSONValue {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        switch kind {
        case .flag: return .bool(!trimmed.isEmpty)
        case .list: return .array(lines.map(JSONValue.string))
        case .links:
            return .array(
                lines.map { line in
                    guard let bar = line.firstIndex(of: "|") else { return .object(["url": .string(line)]) }
                    let name = line[..<bar].trimmingCharacters(in: .whitespaces)
                    let url = line[line.index(after: bar)...].trimmingCharacters(in: .whitespaces)
                    return .object(["name": .string(name), "url": .string(url)])
                })
        case .number, .choice(_, numbers: true):
            guard !trimmed.isEmpty else { return .null }
            return Int(trimmed).map { .number(Double($0)) } ?? .string(trimmed)
        case .line, .choice: return trimmed.isEmpty ? .null : .string(trimmed)
        case .text: return trimmed.isEmpty ? .null : .string(text)
        }
    }
}

extension EditForm {
    /// A species; its name is set when it is created (a rename is the API's or the CLI's).
    public static func species(creating: Bool) -> EditForm {
        EditForm(
            (creating ? [Field("scientific_name", "Scientific name", hint: "The epithet, without “Quercus”: alba, × bebbiana")] : []) + [
                Field("author", "Author"),
                Field("is_hybrid", "Hybrid", .flag),
                Field("subgenus", "Subgenus", .choice(Species.subgenera.map { Field.Choice(value: $0, label: $0) })),
                Field("section", "Section"), Field("subsection", "Subsection"), Field("complex", "Complex"),
                Field("parent1", "First parent", hint: "For a hybrid: a species' epithet"), Field("parent2", "Second parent"),
                Field("hybrids", "Hybrids", .list, hint: "One epithet per line"),
                Field("closely_related_to", "Closely related to", .list, hint: "One epithet per line"),
                Field("subspecies_varieties", "Subspecies and varieties", .list, hint: "One per line"),
                Field("synonyms", "Synonyms", .list, hint: "One per line"),
                Field("conservation_status", "Conservation status"),
                Field("external_links", "Links elsewhere", .links, hint: "One per line: a URL, or a name, “|” and a URL"),
            ])
    }

    public static let source = EditForm([
        Field("name", "Name"), Field("source_type", "Kind", hint: "Book, Website, Journal article, Personal observation…"),
        Field("author", "Author"), Field("year", "Year", .number), Field("url", "Web address"), Field("isbn", "ISBN"), Field("doi", "DOI"),
        Field("license", "License"), Field("license_url", "License's web address"), Field("description", "About", .text),
        Field("notes", "Notes", .text),
    ])

    /// A taxon; its name and level are set when it is created.
    public static func taxon(creating: Bool) -> EditForm {
        EditForm(
            (creating
                ? [Field("name", "Name"), Field("level", "Level", .choice(TaxonLevel.allCases.map { Field.Choice(value: $0.rawValue, label: $0.rawValue) }))]
                : []) + [
                    Field("parent", "Parent", hint: "The taxon one level up: a subgenus for a section, a section for a subsection…"),
                    Field("author", "Author"), Field("notes", "Notes", .text),
                    Field("links", "Links", .links, hint: "One per line: a URL, or a name, “|” and a URL"),
                ])
    }

    /// A source's description of a species; the source is chosen when it is added.
    public static func description(creatingFrom sources: [Source]?) -> EditForm {
        let choose = sources.map { sources in
            [Field("source_id", "Source", .choice(sources.map { Field.Choice(value: String($0.id), label: $0.name) }, numbers: true))]
        }
        return EditForm(
            (choose ?? []) + [
                Field("local_names", "Local names", .list, hint: "One per line"), Field("range", "Range", .text),
                Field("growth_habit", "Growth habit", .text), Field("leaves", "Leaves", .text), Field("flowers", "Flowers", .text),
                Field("fruits", "Fruits", .text), Field("bark", "Bark", .text), Field("twigs", "Twigs", .text), Field("buds", "Buds", .text),
                Field("hardiness_habitat", "Hardiness and habitat", .text), Field("miscellaneous", "Miscellaneous", .text),
                Field("url", "Web address"), Field("is_preferred", "Preferred description", .flag),
            ])
    }

    /// The owner's notes on a species, field by field as the app edits them.
    public static let note = EditForm(NoteFields.Field.allCases.map { Field($0.rawValue, $0.label, .text) })
}

/// What an edit form shows: each field's text, the version of the record it was opened on, and after a refused
/// submission its errors, (after a conflict) the record's fields as saved now, or that the sign-in had ended.
public struct FormState: Sendable {
    public var values: [String: String]
    public var version: String
    public var errors: [FieldError]
    public var saved: [String: String]?
    /// Sent after the browser's sign-in ended: kept, to be saved once it has signed in again.
    public var signedOut = false

    public init(values: [String: String], version: String, errors: [FieldError] = [], saved: [String: String]? = nil) {
        self.values = values
        self.version = version
        self.errors = errors
        self.saved = saved
    }
}
