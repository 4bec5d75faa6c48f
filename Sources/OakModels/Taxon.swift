import Foundation

/// The rank of a taxon below the genus.
public enum TaxonLevel: String, Codable, CaseIterable, Sendable {
    case subgenus, section, subsection, complex

    /// The level a parent of this level has, if any.
    public var parentLevel: TaxonLevel? {
        switch self {
        case .subgenus: nil
        case .section: .subgenus
        case .subsection: .section
        case .complex: .subsection
        }
    }

    /// The plural, as a taxa file names its list of this level: subgenera, sections, subsections, complexes.
    public var plural: String {
        switch self {
        case .subgenus: "subgenera"
        case .section: "sections"
        case .subsection: "subsections"
        case .complex: "complexes"
        }
    }

    /// The level's depth below the genus: subgenus 0 … complex 3.
    public var depth: Int { TaxonLevel.allCases.firstIndex(of: self) ?? 0 }

    /// The level of this level's children, if any.
    public var childLevel: TaxonLevel? {
        TaxonLevel.allCases.first { $0.parentLevel == self }
    }

    /// Parses a level, throwing a validation error naming `field` otherwise.
    public static func parse(_ text: String, field: String = "level") throws -> TaxonLevel {
        guard let level = TaxonLevel(rawValue: text) else {
            throw OakError.invalid(field, "must be one of: \(allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return level
    }
}

/// A node of the taxonomy below the genus, keyed by (level, name).
public struct Taxon: Codable, Hashable, Sendable {
    public var name: String
    public var level: TaxonLevel
    public var parent: String?
    public var author: String?
    public var notes: String?
    public var links: [JSONValue]
    /// How many species the taxon holds, in answers that count them (lists, details, search).
    public var speciesCount: Int?

    public init(
        name: String, level: TaxonLevel, parent: String? = nil, author: String? = nil, notes: String? = nil,
        links: [JSONValue] = [], speciesCount: Int? = nil
    ) {
        self.name = name
        self.level = level
        self.parent = parent
        self.author = author
        self.notes = notes
        self.links = links
        self.speciesCount = speciesCount
    }

    enum CodingKeys: String, CodingKey {
        case name, level, parent, author, notes, links
        case speciesCount = "species_count"
    }

    /// Reads a taxon as a server or file holds it: no write rule is applied (what was stored is accepted).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name), level: try container.decode(TaxonLevel.self, forKey: .level),
            parent: try container.decodeIfPresent(String.self, forKey: .parent),
            author: try container.decodeIfPresent(String.self, forKey: .author),
            notes: try container.decodeIfPresent(String.self, forKey: .notes),
            links: try container.decodeIfPresent([JSONValue].self, forKey: .links) ?? [],
            speciesCount: try container.decodeIfPresent(Int.self, forKey: .speciesCount))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(level, forKey: .level)
        try container.encodeIfPresent(parent, forKey: .parent)
        try container.encodeIfPresent(author, forKey: .author)
        try container.encodeIfPresent(notes, forKey: .notes)
        try container.encodeUnlessEmpty(links, forKey: .links)
        try container.encodeIfPresent(speciesCount, forKey: .speciesCount)
    }

    /// A new taxon from a create request; name and level are required.
    public init(creating patch: TaxonPatch) throws {
        var validator = Validator()
        if case .value(let name) = patch.name { validator.require(name, "name") } else { validator.fail("name", "is required") }
        var level: TaxonLevel?
        if case .value(let text) = patch.level {
            level = TaxonLevel(rawValue: text)
            if level == nil { validator.oneOf(text, "level", TaxonLevel.allCases.map(\.rawValue)) }
        } else {
            validator.fail("level", "is required")
        }
        try validator.check()
        guard case .value(let name) = patch.name, let level else { throw OakError.invalid("level", "is required") }
        self.init(name: String(name.trimmingWhitespace), level: level)
        try apply(patch)
    }

    /// Applies a partial update; name and level never change.
    public mutating func apply(_ patch: TaxonPatch) throws {
        parent = patch.parent.applied(to: parent)
        author = patch.author.applied(to: author)
        notes = patch.notes.applied(to: notes)
        links = patch.links.applied(to: links)
        var validator = Validator()
        validator.length(name, "name", 1...100)
        validator.length(parent, "parent", 1...100)
        validator.length(author, "author", 0...FieldLimits.shortText)
        validator.length(notes, "notes", 0...FieldLimits.longText)
        try validator.check()
        // The taxon's level is its state, not this request's: a parent for a subgenus conflicts with it.
        if level == .subgenus, parent != nil { throw OakError.conflicting("parent", "must be null for a subgenus") }
    }
}

/// A taxon create or update request.
public struct TaxonPatch: Codable, Sendable {
    public var name: Patch<String> = .absent
    public var level: Patch<String> = .absent
    public var parent: Patch<String> = .absent
    public var author: Patch<String> = .absent
    public var notes: Patch<String> = .absent
    public var links: Patch<[JSONValue]> = .absent

    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Taxon.CodingKeys.self)
        name = try container.patch(.name)
        level = try container.patch(.level)
        parent = try container.patch(.parent)
        author = try container.patch(.author)
        notes = try container.patch(.notes)
        links = try container.patch(.links)
    }

    /// Encodes the patch as a request body: absent fields left out, cleared ones as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Taxon.CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(level, forKey: .level)
        try container.encode(parent, forKey: .parent)
        try container.encode(author, forKey: .author)
        try container.encode(notes, forKey: .notes)
        try container.encode(links, forKey: .links)
    }
}
