import Foundation

/// A reference that descriptive data is attributed to (a website, a book, personal observation).
public struct Source: Codable, Hashable, Sendable {
    public var id: Int
    public var sourceType: String
    public var name: String
    public var description: String?
    public var author: String?
    public var year: Int?
    public var url: String?
    public var isbn: String?
    public var doi: String?
    public var notes: String?
    public var license: String?
    public var licenseURL: String?
    /// How many species have data from the source, in answers that count them (lists, details, search).
    public var speciesCount: Int?

    /// The standard source ids every database has.
    public static let iNaturalistID = 1
    public static let oaksOfTheWorldID = 2
    public static let personalObservationID = 3

    public init(
        id: Int, sourceType: String, name: String, description: String? = nil, author: String? = nil,
        year: Int? = nil, url: String? = nil, isbn: String? = nil, doi: String? = nil, notes: String? = nil,
        license: String? = nil, licenseURL: String? = nil, speciesCount: Int? = nil
    ) {
        self.id = id
        self.sourceType = sourceType
        self.name = name
        self.description = description
        self.author = author
        self.year = year
        self.url = url
        self.isbn = isbn
        self.doi = doi
        self.notes = notes
        self.license = license
        self.licenseURL = licenseURL
        self.speciesCount = speciesCount
    }

    enum CodingKeys: String, CodingKey {
        case id
        case sourceType = "source_type"
        case name, description, author, year, url, isbn, doi, notes, license
        case licenseURL = "license_url"
        case speciesCount = "species_count"
    }

    /// Reads a source as a server or file holds it: no write rule is applied (what was stored is accepted).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(Int.self, forKey: .id), sourceType: try container.decode(String.self, forKey: .sourceType),
            name: try container.decode(String.self, forKey: .name),
            description: try container.decodeIfPresent(String.self, forKey: .description),
            author: try container.decodeIfPresent(String.self, forKey: .author),
            year: try container.decodeIfPresent(Int.self, forKey: .year), url: try container.decodeIfPresent(String.self, forKey: .url),
            isbn: try container.decodeIfPresent(String.self, forKey: .isbn), doi: try container.decodeIfPresent(String.self, forKey: .doi),
            notes: try container.decodeIfPresent(String.self, forKey: .notes),
            license: try container.decodeIfPresent(String.self, forKey: .license),
            licenseURL: try container.decodeIfPresent(String.self, forKey: .licenseURL),
            speciesCount: try container.decodeIfPresent(Int.self, forKey: .speciesCount))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(sourceType, forKey: .sourceType)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encodeIfPresent(author, forKey: .author)
        try container.encodeIfPresent(year, forKey: .year)
        try container.encodeIfPresent(url, forKey: .url)
        try container.encodeIfPresent(isbn, forKey: .isbn)
        try container.encodeIfPresent(doi, forKey: .doi)
        try container.encodeIfPresent(notes, forKey: .notes)
        try container.encodeIfPresent(license, forKey: .license)
        try container.encodeIfPresent(licenseURL, forKey: .licenseURL)
        try container.encodeIfPresent(speciesCount, forKey: .speciesCount)
    }

    /// A new source from a create request; `source_type` and `name` are required.
    public init(id: Int, creating patch: SourcePatch) throws {
        var validator = Validator()
        if case .value(let type) = patch.sourceType {
            validator.require(type, "source_type")
        } else {
            validator.fail("source_type", "is required")
        }
        if case .value(let name) = patch.name { validator.require(name, "name") } else { validator.fail("name", "is required") }
        try validator.check()
        self.init(id: id, sourceType: "", name: "")
        try apply(patch)
    }

    /// Applies a partial update; required fields cannot be cleared.
    public mutating func apply(_ patch: SourcePatch) throws {
        var validator = Validator()
        if case .null = patch.sourceType { validator.fail("source_type", "is required") }
        if case .null = patch.name { validator.fail("name", "is required") }
        sourceType = patch.sourceType.applied(to: sourceType) ?? sourceType
        name = patch.name.applied(to: name) ?? name
        description = patch.description.applied(to: description)
        author = patch.author.applied(to: author)
        year = patch.year.applied(to: year)
        url = patch.url.applied(to: url)
        isbn = patch.isbn.applied(to: isbn)
        doi = patch.doi.applied(to: doi)
        notes = patch.notes.applied(to: notes)
        license = patch.license.applied(to: license)
        licenseURL = patch.licenseURL.applied(to: licenseURL)
        validator.require(sourceType, "source_type")
        validator.length(sourceType, "source_type", 1...50)
        validator.require(name, "name")
        validator.length(name, "name", 1...200)
        for (value, field) in [
            (author, "author"), (url, "url"), (isbn, "isbn"), (doi, "doi"), (license, "license"),
            (licenseURL, "license_url"),
        ] {
            validator.length(value, field, 0...FieldLimits.shortText)
        }
        validator.length(description, "description", 0...FieldLimits.longText)
        validator.length(notes, "notes", 0...FieldLimits.longText)
        if let year, !(0...9999).contains(year) { validator.fail("year", "must be between 0 and 9999") }
        try validator.check()
    }
}

/// A source create or update request.
public struct SourcePatch: Codable, Sendable {
    public var sourceType: Patch<String> = .absent
    public var name: Patch<String> = .absent
    public var description: Patch<String> = .absent
    public var author: Patch<String> = .absent
    public var year: Patch<Int> = .absent
    public var url: Patch<String> = .absent
    public var isbn: Patch<String> = .absent
    public var doi: Patch<String> = .absent
    public var notes: Patch<String> = .absent
    public var license: Patch<String> = .absent
    public var licenseURL: Patch<String> = .absent

    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Source.CodingKeys.self)
        sourceType = try container.patch(.sourceType)
        name = try container.patch(.name)
        description = try container.patch(.description)
        author = try container.patch(.author)
        year = try container.patch(.year)
        url = try container.patch(.url)
        isbn = try container.patch(.isbn)
        doi = try container.patch(.doi)
        notes = try container.patch(.notes)
        license = try container.patch(.license)
        licenseURL = try container.patch(.licenseURL)
    }

    /// Encodes the patch as a request body: absent fields left out, cleared ones as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Source.CodingKeys.self)
        try container.encode(sourceType, forKey: .sourceType)
        try container.encode(name, forKey: .name)
        try container.encode(description, forKey: .description)
        try container.encode(author, forKey: .author)
        try container.encode(year, forKey: .year)
        try container.encode(url, forKey: .url)
        try container.encode(isbn, forKey: .isbn)
        try container.encode(doi, forKey: .doi)
        try container.encode(notes, forKey: .notes)
        try container.encode(license, forKey: .license)
        try container.encode(licenseURL, forKey: .licenseURL)
    }
}
