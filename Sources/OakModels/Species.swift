import Foundation

/// An oak species (or hybrid), keyed by its epithet without the "Quercus" prefix.
public struct Species: Codable, Hashable, Sendable {
    public var scientificName: String
    public var author: String?
    public var isHybrid: Bool
    public var conservationStatus: String?
    public var subgenus: String?
    public var section: String?
    public var subsection: String?
    public var complex: String?
    public var parent1: String?
    public var parent2: String?
    public var hybrids: [String]
    public var closelyRelatedTo: [String]
    public var subspeciesVarieties: [String]
    public var synonyms: [String]
    public var externalLinks: [JSONValue]

    /// IUCN Red List categories accepted in `conservation_status`.
    public static let conservationStatuses = ["EX", "EW", "CR", "EN", "VU", "NT", "LC", "DD", "NE"]
    /// Subgenera accepted in `subgenus`.
    public static let subgenera = ["Quercus", "Cerris", "Cyclobalanopsis"]

    /// The name a species goes by in the apps and on the pages: "Quercus alba", "Quercus × bebbiana".
    public static func fullName(_ scientificName: String) -> String { "Quercus \(scientificName)" }

    public init(
        scientificName: String, author: String? = nil, isHybrid: Bool = false, conservationStatus: String? = nil,
        subgenus: String? = nil, section: String? = nil, subsection: String? = nil, complex: String? = nil,
        parent1: String? = nil, parent2: String? = nil, hybrids: [String] = [], closelyRelatedTo: [String] = [],
        subspeciesVarieties: [String] = [], synonyms: [String] = [], externalLinks: [JSONValue] = []
    ) {
        self.scientificName = scientificName
        self.author = author
        self.isHybrid = isHybrid
        self.conservationStatus = conservationStatus
        self.subgenus = subgenus
        self.section = section
        self.subsection = subsection
        self.complex = complex
        self.parent1 = parent1
        self.parent2 = parent2
        self.hybrids = hybrids
        self.closelyRelatedTo = closelyRelatedTo
        self.subspeciesVarieties = subspeciesVarieties
        self.synonyms = synonyms
        self.externalLinks = externalLinks
    }

    enum CodingKeys: String, CodingKey {
        case scientificName = "scientific_name"
        case author
        case isHybrid = "is_hybrid"
        case conservationStatus = "conservation_status"
        case subgenus, section, subsection, complex, parent1, parent2
        case hybrids
        case closelyRelatedTo = "closely_related_to"
        case subspeciesVarieties = "subspecies_varieties"
        case synonyms
        case externalLinks = "external_links"
    }

    /// Reads a species as a server or file holds it: no write rule is applied (what was stored is accepted).
    public init(from decoder: any Decoder) throws {
        let patch = try SpeciesPatch(from: decoder)
        guard case .value(let name) = patch.scientificName else {
            throw DecodingError.keyNotFound(
                CodingKeys.scientificName, .init(codingPath: decoder.codingPath, debugDescription: "scientific_name is required"))
        }
        self.init(scientificName: name)
        merge(patch)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scientificName, forKey: .scientificName)
        try container.encodeIfPresent(author, forKey: .author)
        try container.encode(isHybrid, forKey: .isHybrid)
        try container.encodeIfPresent(conservationStatus, forKey: .conservationStatus)
        try container.encodeIfPresent(subgenus, forKey: .subgenus)
        try container.encodeIfPresent(section, forKey: .section)
        try container.encodeIfPresent(subsection, forKey: .subsection)
        try container.encodeIfPresent(complex, forKey: .complex)
        try container.encodeIfPresent(parent1, forKey: .parent1)
        try container.encodeIfPresent(parent2, forKey: .parent2)
        try container.encodeUnlessEmpty(hybrids, forKey: .hybrids)
        try container.encodeUnlessEmpty(closelyRelatedTo, forKey: .closelyRelatedTo)
        try container.encodeUnlessEmpty(subspeciesVarieties, forKey: .subspeciesVarieties)
        try container.encodeUnlessEmpty(synonyms, forKey: .synonyms)
        try container.encodeUnlessEmpty(externalLinks, forKey: .externalLinks)
    }

    /// A new species from a create request; the name is required.
    public init(creating patch: SpeciesPatch) throws {
        guard case .value(let name) = patch.scientificName else {
            throw OakError.invalid("scientific_name", "is required")
        }
        let isHybrid = patch.isHybrid.applied(to: false) ?? false
        self.init(scientificName: isHybrid ? Species.hybridName(name) : Species.normalizedName(name))
        try apply(patch)
    }

    /// Applies a partial update (PUT/PATCH merge); the name never changes, then validates.
    public mutating func apply(_ patch: SpeciesPatch) throws {
        merge(patch)
        // A name sent on update is ignored, but held to the rules of a name like every value a request carries.
        if case .value(let name) = patch.scientificName, name != scientificName {
            try Species(scientificName: name).validate()
        }
        try validate()
    }

    /// Takes the fields a patch names, unvalidated; the name never changes.
    private mutating func merge(_ patch: SpeciesPatch) {
        author = patch.author.applied(to: author)
        isHybrid = patch.isHybrid.applied(to: isHybrid) ?? false
        conservationStatus = patch.conservationStatus.applied(to: conservationStatus)
        subgenus = patch.subgenus.applied(to: subgenus)
        section = patch.section.applied(to: section)
        subsection = patch.subsection.applied(to: subsection)
        complex = patch.complex.applied(to: complex)
        parent1 = patch.parent1.applied(to: parent1).map(Species.normalizedName)
        parent2 = patch.parent2.applied(to: parent2).map(Species.normalizedName)
        hybrids = patch.hybrids.applied(to: hybrids)
        closelyRelatedTo = patch.closelyRelatedTo.applied(to: closelyRelatedTo)
        subspeciesVarieties = patch.subspeciesVarieties.applied(to: subspeciesVarieties)
        synonyms = patch.synonyms.applied(to: synonyms)
        externalLinks = patch.externalLinks.applied(to: externalLinks)
    }

    /// Throws a validation error naming every invalid field.
    public func validate() throws {
        var validator = Validator()
        validator.require(scientificName, "scientific_name")
        validator.length(scientificName, "scientific_name", 2...100)
        validator.length(author, "author", 0...FieldLimits.shortText)
        validator.oneOf(conservationStatus, "conservation_status", Species.conservationStatuses)
        validator.oneOf(subgenus, "subgenus", Species.subgenera)
        for (value, field) in [(section, "section"), (subsection, "subsection"), (complex, "complex")] {
            validator.length(value, field, 1...100)
        }
        for (value, field) in [(parent1, "parent1"), (parent2, "parent2")] {
            validator.length(value, field, 2...100)
        }
        validator.list(hybrids, "hybrids")
        validator.list(closelyRelatedTo, "closely_related_to")
        validator.list(subspeciesVarieties, "subspecies_varieties")
        validator.list(synonyms, "synonyms")
        try validator.check()
    }

    /// The sign that marks a hybrid name: "× bebbiana".
    public static let hybridSign = "×"

    /// Species are stored without the genus ("Quercus alba" and "Q. alba" become "alba"), and hybrids with
    /// the multiplication sign as real data writes them: "x bebbiana", "X bebbiana" and "×bebbiana" become
    /// "× bebbiana", and a formula "alba x macrocarpa" becomes "alba × macrocarpa". A name that merely
    /// starts with an x ("xalapensis"), or a lone "x", is left alone.
    public static func normalizedName(_ name: String) -> String {
        // Most names arrive normalized: one ASCII word has no prefix, no "x" and no sign to rewrite.
        if !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) { return name }
        var trimmed = String(name.trimmingWhitespace)
        for prefix in ["Quercus ", "quercus ", "Q. "] where trimmed.hasPrefix(prefix) {
            trimmed = String(trimmed.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
        }
        var words = trimmed.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        for index in words.indices where words.count > 1 && (words[index] == "x" || words[index] == "X") {
            words[index] = hybridSign
        }
        if let first = words.first, first.hasPrefix(hybridSign), first != hybridSign {
            words[0] = String(first.dropFirst())
            words.insert(hybridSign, at: 0)
        }
        return words.joined(separator: " ")
    }

    /// The name a hybrid is stored under: its normalized name, with "× " in front unless it is a formula
    /// ("alba × macrocarpa") or already has it.
    public static func hybridName(_ name: String) -> String {
        let normalized = normalizedName(name)
        return normalized.contains(hybridSign) ? normalized : "\(hybridSign) \(normalized)"
    }

    /// The other spelling a stored name may have: "× bebbiana" for "bebbiana" and the reverse, so files
    /// whose hybrids were stored without the sign still resolve.
    public static func alternateName(_ normalized: String) -> String {
        normalized.hasPrefix(hybridSign + " ") ? String(normalized.dropFirst(2)) : "\(hybridSign) \(normalized)"
    }

    /// The names a species asked for as `name` may be stored under, in the order they are tried: the name
    /// exactly as given (trimmed), its normalized spelling, the other spelling of the leading marker, then each
    /// of those with the ASCII "x" and "X" for the sign. Real databases hold hybrids spelled every way
    /// ("berberidifolia × douglasii" beside "berberidifolia x cornelius-mulleri"); the exact stored name wins,
    /// so every record is reachable by the name it is stored under. At most `maxStoredSpellings` names.
    public static func storedSpellings(of name: String) -> [String] {
        let normalized = normalizedName(name)
        let alternate = alternateName(normalized)
        var spellings: [String] = []
        spellings.reserveCapacity(maxStoredSpellings)
        func add(_ spelling: String) {
            if !spelling.isEmpty && !spellings.contains(spelling) { spellings.append(spelling) }
        }
        add(String(name.trimmingWhitespace))
        add(normalized)
        add(alternate)
        // By scalar rather than with Foundation's string search, which is slow for this: every pushed note's
        // species is resolved through here.
        for spelling in [normalized, alternate] where spelling.unicodeScalars.contains(hybridScalar) {
            add(replacingHybridSign(in: spelling, with: "x"))
            add(replacingHybridSign(in: spelling, with: "X"))
        }
        return spellings
    }

    /// `hybridSign`, one scalar.
    private static let hybridScalar = hybridSign.unicodeScalars.first!

    private static func replacingHybridSign(in spelling: String, with letter: Unicode.Scalar) -> String {
        var result = String.UnicodeScalarView()
        for scalar in spelling.unicodeScalars { result.append(scalar == hybridScalar ? letter : scalar) }
        return String(result)
    }

    /// The most names `storedSpellings(of:)` gives.
    public static let maxStoredSpellings = 7

    /// `storedSpellings(of:)` padded to `maxStoredSpellings` with its last name, for a query of a fixed shape
    /// (one prepared statement whatever the name).
    public static func storedSpellingsPadded(of name: String) -> [String] {
        let spellings = storedSpellings(of: name)
        return spellings + Array(repeating: spellings.last ?? "", count: maxStoredSpellings - spellings.count)
    }
}

/// A species create or update request: each field absent, `null` or a value.
public struct SpeciesPatch: Codable, Sendable {
    public var scientificName: Patch<String> = .absent
    public var author: Patch<String> = .absent
    public var isHybrid: Patch<Bool> = .absent
    public var conservationStatus: Patch<String> = .absent
    public var subgenus: Patch<String> = .absent
    public var section: Patch<String> = .absent
    public var subsection: Patch<String> = .absent
    public var complex: Patch<String> = .absent
    public var parent1: Patch<String> = .absent
    public var parent2: Patch<String> = .absent
    public var hybrids: Patch<[String]> = .absent
    public var closelyRelatedTo: Patch<[String]> = .absent
    public var subspeciesVarieties: Patch<[String]> = .absent
    public var synonyms: Patch<[String]> = .absent
    public var externalLinks: Patch<[JSONValue]> = .absent

    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Species.CodingKeys.self)
        scientificName = try container.patch(.scientificName)
        author = try container.patch(.author)
        isHybrid = try container.patch(.isHybrid)
        conservationStatus = try container.patch(.conservationStatus)
        subgenus = try container.patch(.subgenus)
        section = try container.patch(.section)
        subsection = try container.patch(.subsection)
        complex = try container.patch(.complex)
        parent1 = try container.patch(.parent1)
        parent2 = try container.patch(.parent2)
        hybrids = try container.patch(.hybrids)
        closelyRelatedTo = try container.patch(.closelyRelatedTo)
        subspeciesVarieties = try container.patch(.subspeciesVarieties)
        synonyms = try container.patch(.synonyms)
        externalLinks = try container.patch(.externalLinks)
    }

    /// Encodes the patch as a request body: absent fields left out, cleared ones as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Species.CodingKeys.self)
        try container.encode(scientificName, forKey: .scientificName)
        try container.encode(author, forKey: .author)
        try container.encode(isHybrid, forKey: .isHybrid)
        try container.encode(conservationStatus, forKey: .conservationStatus)
        try container.encode(subgenus, forKey: .subgenus)
        try container.encode(section, forKey: .section)
        try container.encode(subsection, forKey: .subsection)
        try container.encode(complex, forKey: .complex)
        try container.encode(parent1, forKey: .parent1)
        try container.encode(parent2, forKey: .parent2)
        try container.encode(hybrids, forKey: .hybrids)
        try container.encode(closelyRelatedTo, forKey: .closelyRelatedTo)
        try container.encode(subspeciesVarieties, forKey: .subspeciesVarieties)
        try container.encode(synonyms, forKey: .synonyms)
        try container.encode(externalLinks, forKey: .externalLinks)
    }
}

/// Filters of the species list.
public struct SpeciesFilter: Sendable, Equatable {
    public var subgenus: String?
    public var section: String?
    public var subsection: String?
    public var complex: String?
    public var isHybrid: Bool?
    /// Only species that have data from this source.
    public var sourceId: Int?

    public init(
        subgenus: String? = nil, section: String? = nil, subsection: String? = nil, complex: String? = nil,
        isHybrid: Bool? = nil, sourceId: Int? = nil
    ) {
        self.subgenus = subgenus
        self.section = section
        self.subsection = subsection
        self.complex = complex
        self.isHybrid = isHybrid
        self.sourceId = sourceId
    }
}
