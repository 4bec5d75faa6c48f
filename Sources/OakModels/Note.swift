import Foundation

/// A field note: the app's view of a `species_sources` row (camelCase on the wire).
/// Its taxonomy is read from the species, never stored twice.
public struct Note: Codable, Hashable, Sendable {
    public var id: UUID
    public var scientificName: String
    public var taxonomy: NoteTaxonomy
    public var fields: NoteFields
    public var sourceId: Int
    public var createdAt: Date
    public var updatedAt: Date
    /// The sequence number of the note's latest change on the server.
    public var version: Int64
    /// The source's data that is not a note field (flowers, hardiness and habitat, whether it is the
    /// preferred source); read-only through notes, kept so a device holds everything the export has.
    public var reference: NoteReference
    /// When each field was last written, for the fields not written at `updatedAt` (see `TimedFields`). The
    /// sync protocol carries it (`fieldTimes`); the REST routes do not.
    public var fieldTimes: [NoteFields.Field: Date]

    public init(
        id: UUID, scientificName: String, taxonomy: NoteTaxonomy = NoteTaxonomy(), fields: NoteFields = NoteFields(),
        sourceId: Int = Source.personalObservationID, createdAt: Date, updatedAt: Date, version: Int64 = 0,
        reference: NoteReference = NoteReference(), fieldTimes: [NoteFields.Field: Date] = [:]
    ) {
        self.fieldTimes = fieldTimes
        self.id = id
        self.scientificName = scientificName
        self.taxonomy = taxonomy
        self.fields = fields
        self.sourceId = sourceId
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
        self.reference = reference
    }

    enum CodingKeys: String, CodingKey {
        case id, scientificName, taxonomy, fields, sourceId, createdAt, updatedAt, version
        case flowers, hardinessHabitat, isPreferred, fieldTimes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeID(forKey: .id)
        scientificName = try container.decode(String.self, forKey: .scientificName)
        taxonomy = try container.decodeIfPresent(NoteTaxonomy.self, forKey: .taxonomy) ?? NoteTaxonomy()
        fields = try container.decodeIfPresent(NoteFields.self, forKey: .fields) ?? NoteFields()
        sourceId = try container.decodeIfPresent(Int.self, forKey: .sourceId) ?? Source.personalObservationID
        createdAt = try container.decodeTimestamp(forKey: .createdAt)
        updatedAt = try container.decodeTimestamp(forKey: .updatedAt)
        version = try container.decodeIfPresent(Int64.self, forKey: .version) ?? 0
        reference = NoteReference(
            flowers: try container.decodeIfPresent(String.self, forKey: .flowers),
            hardinessHabitat: try container.decodeIfPresent(String.self, forKey: .hardinessHabitat),
            isPreferred: try container.decodeIfPresent(Bool.self, forKey: .isPreferred) ?? false)
        fieldTimes = FieldTimesJSON.decode(try container.decodeIfPresent([String: String].self, forKey: .fieldTimes) ?? [:])
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.wireString, forKey: .id)
        try container.encode(scientificName, forKey: .scientificName)
        try container.encode(taxonomy, forKey: .taxonomy)
        try container.encode(fields, forKey: .fields)
        try container.encode(sourceId, forKey: .sourceId)
        try container.encode(WireTime.format(createdAt), forKey: .createdAt)
        // The sync protocol carries times to the millisecond and each field's own time; the REST routes neither.
        let forSync = encoder.userInfo[WireJSON.preciseTimes] as? Bool == true
        try container.encode(forSync ? WireTime.formatPrecise(updatedAt) : WireTime.format(updatedAt), forKey: .updatedAt)
        if forSync { try FieldTimesJSON.encode(fieldTimes, into: &container, forKey: .fieldTimes) }
        try container.encode(version, forKey: .version)
        try container.encodeIfPresent(reference.flowers, forKey: .flowers)
        try container.encodeIfPresent(reference.hardinessHabitat, forKey: .hardinessHabitat)
        try container.encode(reference.isPreferred, forKey: .isPreferred)
    }

    /// The note's HTTP ETag: its version.
    public var etag: String { "\"\(version)\"" }
}

/// The parts of a species-source row that are not note fields. On the wire they sit beside a note's
/// `fields` (`flowers` and `hardinessHabitat` left out when absent).
public struct NoteReference: Codable, Hashable, Sendable {
    public var flowers: String?
    public var hardinessHabitat: String?
    /// Whether this source is the preferred one for the species.
    public var isPreferred: Bool

    public init(flowers: String? = nil, hardinessHabitat: String? = nil, isPreferred: Bool = false) {
        self.flowers = flowers
        self.hardinessHabitat = hardinessHabitat
        self.isPreferred = isPreferred
    }

    /// The reference data of a species-source row.
    public init(_ record: SpeciesSource) {
        self.init(flowers: record.flowers, hardinessHabitat: record.hardinessHabitat, isPreferred: record.isPreferred)
    }
}

/// The species' place in the taxonomy, as a note shows it.
public struct NoteTaxonomy: Codable, Hashable, Sendable {
    public var subgenus: String?
    public var section: String?
    public var subsection: String?
    public var complex: String?

    public init(subgenus: String? = nil, section: String? = nil, subsection: String? = nil, complex: String? = nil) {
        self.subgenus = subgenus
        self.section = section
        self.subsection = subsection
        self.complex = complex
    }

    enum CodingKeys: String, CodingKey { case subgenus, section, subsection, complex }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(subgenus, forKey: .subgenus)
        try container.encodeIfPresent(section, forKey: .section)
        try container.encodeIfPresent(subsection, forKey: .subsection)
        try container.encodeIfPresent(complex, forKey: .complex)
    }
}

/// A note's text fields; each maps to a `species_sources` column (see `NoteFields.apply(to:)`).
public struct NoteFields: Codable, Hashable, Sendable {
    public var commonNames: String?
    public var leaf: String?
    public var acorn: String?
    public var bark: String?
    public var twigs: String?
    public var buds: String?
    public var form: String?
    public var rangeHabitat: String?
    public var fieldNotes: String?
    public var resources: String?

    public init(
        commonNames: String? = nil, leaf: String? = nil, acorn: String? = nil, bark: String? = nil,
        twigs: String? = nil, buds: String? = nil, form: String? = nil, rangeHabitat: String? = nil,
        fieldNotes: String? = nil, resources: String? = nil
    ) {
        self.commonNames = commonNames
        self.leaf = leaf
        self.acorn = acorn
        self.bark = bark
        self.twigs = twigs
        self.buds = buds
        self.form = form
        self.rangeHabitat = rangeHabitat
        self.fieldNotes = fieldNotes
        self.resources = resources
    }

    /// The fields, in the order the apps show them; their raw values are the notes API's names.
    public enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
        case commonNames, leaf, acorn, bark, twigs, buds, form, rangeHabitat, fieldNotes, resources

        /// The field's label, as the app and the web pages show it.
        public var label: String {
            switch self {
            case .commonNames: "Common names"
            case .leaf: "Leaf"
            case .acorn: "Acorn"
            case .bark: "Bark"
            case .twigs: "Twigs"
            case .buds: "Buds"
            case .form: "Form"
            case .rangeHabitat: "Range & habitat"
            case .fieldNotes: "Field notes"
            case .resources: "Resources"
            }
        }
    }

    /// A field's name, as the notes API spells it.
    public typealias Field = CodingKeys

    /// The fields an object holds; a field it leaves out or sets to `null` is empty. Only the keys present are
    /// visited (a pulled note holds a few of its fields), so a pull's decoding does not look for every field of
    /// every note (see BENCHMARKS.md, "Server round 2", item 8).
    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: CodingKeys.self)
        for key in container.allKeys {
            self[key] = try container.decodeIfPresent(String.self, forKey: key)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        for key in CodingKeys.allCases {
            try container.encodeIfPresent(self[key], forKey: key)
        }
    }

    /// One field's text.
    public subscript(key: Field) -> String? {
        get {
            switch key {
            case .commonNames: commonNames
            case .leaf: leaf
            case .acorn: acorn
            case .bark: bark
            case .twigs: twigs
            case .buds: buds
            case .form: form
            case .rangeHabitat: rangeHabitat
            case .fieldNotes: fieldNotes
            case .resources: resources
            }
        }
        set {
            switch key {
            case .commonNames: commonNames = newValue
            case .leaf: leaf = newValue
            case .acorn: acorn = newValue
            case .bark: bark = newValue
            case .twigs: twigs = newValue
            case .buds: buds = newValue
            case .form: form = newValue
            case .rangeHabitat: rangeHabitat = newValue
            case .fieldNotes: fieldNotes = newValue
            case .resources: resources = newValue
            }
        }
    }

    /// The fields read from a species-source row.
    public init(_ record: SpeciesSource) {
        self.init(
            commonNames: record.localNames.isEmpty ? nil : record.localNames.joined(separator: ", "),
            leaf: record.leaves, acorn: record.fruits, bark: record.bark, twigs: record.twigs, buds: record.buds,
            form: record.growthHabit, rangeHabitat: record.range, fieldNotes: record.miscellaneous, resources: record.url)
    }

    /// The local names a `commonNames` text lists: split on commas, trimmed, empty ones dropped.
    public static func localNames(from commonNames: String?) -> [String] {
        (commonNames ?? "").split(separator: ",").map { String($0.trimmingWhitespace) }.filter { !$0.isEmpty }
    }

    /// Writes the fields into a species-source row's columns (`commonNames` split on commas).
    public func apply(to record: inout SpeciesSource) {
        record.localNames = Self.localNames(from: commonNames)
        record.leaves = leaf
        record.fruits = acorn
        record.bark = bark
        record.twigs = twigs
        record.buds = buds
        record.growthHabit = form
        record.range = rangeHabitat
        record.miscellaneous = fieldNotes
        record.url = resources
    }

    /// Validates a species-source row holding note fields: a field error names the note field as the notes
    /// API does (`fields.leaf`), not the column it is stored in (`leaves`).
    public static func validate(_ record: SpeciesSource) throws {
        do {
            try record.validate()
        } catch let error as OakError where !error.fieldErrors.isEmpty {
            throw OakError.validation(
                error.fieldErrors.map { fieldError in
                    let field = Field.allCases.first { $0.column == fieldError.field }
                    return FieldError(field: field.map { "fields.\($0.rawValue)" } ?? fieldError.field, message: fieldError.message)
                })
        }
    }

    /// The fields in one fixed layout (each text with its length), equal exactly when the fields are: part of a
    /// pushed change's identity (`PushReceipts`).
    public var canonicalText: String {
        CodingKeys.allCases.map { self[$0].map { "\($0.count):\($0)" } ?? "-" }.joined(separator: "|")
    }
}

/// A partial update of a note's fields: absent keys are unchanged, `null` clears.
public struct NoteFieldsPatch: Decodable, Sendable {
    var values: [NoteFields.CodingKeys: Patch<String>] = [:]

    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: NoteFields.CodingKeys.self)
        for key in NoteFields.CodingKeys.allCases {
            values[key] = try container.patch(key)
        }
    }

    /// A patch that gives every field `fields`' value, clearing the ones it lacks.
    public init(replacingWith fields: NoteFields) {
        for key in NoteFields.CodingKeys.allCases {
            values[key] = fields[key].map { .value($0) } ?? .null
        }
    }

    /// The field names, as the notes API spells them.
    public static var fieldNames: [String] { NoteFields.CodingKeys.allCases.map(\.rawValue) }

    /// Sets one field by name (nil or empty text clears it); an unknown name is a validation error.
    public mutating func set(_ name: String, to value: String?) throws {
        guard let key = NoteFields.CodingKeys(rawValue: name) else {
            throw OakError.invalid(name, "is not a note field; the fields are: \(Self.fieldNames.joined(separator: ", "))")
        }
        values[key] = value.flatMap { $0.isEmpty ? nil : Patch.value($0) } ?? .null
    }

    /// Whether the patch names no field.
    public var isEmpty: Bool { values.isEmpty }

    /// Applies the named fields to `fields`.
    public func apply(to fields: inout NoteFields) {
        for (key, patch) in values {
            fields[key] = patch.applied(to: fields[key])
        }
    }
}

/// A note create or update request on `/api/v1/notes`.
public struct NoteInput: Decodable, Sendable {
    public var id: UUID?
    public var scientificName: String?
    public var sourceId: Int?
    public var fields: NoteFieldsPatch

    public init(id: UUID? = nil, scientificName: String? = nil, sourceId: Int? = nil, fields: NoteFieldsPatch = NoteFieldsPatch()) {
        self.id = id
        self.scientificName = scientificName
        self.sourceId = sourceId
        self.fields = fields
    }

    enum CodingKeys: String, CodingKey { case id, scientificName, sourceId, fields }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let id = try container.decodeIDIfPresent(forKey: .id) { self.id = id }
        scientificName = try container.decodeIfPresent(String.self, forKey: .scientificName)
        sourceId = try container.decodeIfPresent(Int.self, forKey: .sourceId)
        fields = try container.decodeIfPresent(NoteFieldsPatch.self, forKey: .fields) ?? NoteFieldsPatch()
    }
}

extension KeyedDecodingContainer {
    /// An RFC 3339 timestamp string (fractions accepted); a wrong one is a decoding error naming the key.
    func decodeTimestamp(forKey key: Key) throws -> Date {
        let text = try decode(String.self, forKey: key)
        guard let date = WireTime.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not an RFC 3339 timestamp")
        }
        return date
    }

    /// An id as the API writes it (`UUID(wireString:)`, either case); a wrong one is a decoding error naming the key.
    func decodeID(forKey key: Key) throws -> UUID {
        try id(in: decode(String.self, forKey: key), forKey: key)
    }

    /// An id if the key is present and not null (see `decodeID`).
    func decodeIDIfPresent(forKey key: Key) throws -> UUID? {
        try decodeIfPresent(String.self, forKey: key).map { try id(in: $0, forKey: key) }
    }

    private func id(in text: String, forKey key: Key) throws -> UUID {
        guard let id = UUID(wireString: text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not a UUID")
        }
        return id
    }
}

extension NoteFields.Field {
    /// The `species_sources` column the field is stored in (`NoteFields.apply(to:)` writes it there).
    public var column: String {
        switch self {
        case .commonNames: "local_names"
        case .leaf: "leaves"
        case .acorn: "fruits"
        case .bark: "bark"
        case .twigs: "twigs"
        case .buds: "buds"
        case .form: "growth_habit"
        case .rangeHabitat: "range"
        case .fieldNotes: "miscellaneous"
        case .resources: "url"
        }
    }
}
