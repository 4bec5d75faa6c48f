import Foundation

/// Descriptive data about one species from one source (a row of `species_sources`).
/// Source-3 rows are also the app's field notes.
public struct SpeciesSource: Codable, Hashable, Sendable {
    public var id: Int
    public var uuid: UUID
    public var scientificName: String
    public var sourceId: Int
    public var localNames: [String]
    public var range: String?
    public var growthHabit: String?
    public var leaves: String?
    public var flowers: String?
    public var fruits: String?
    public var bark: String?
    public var twigs: String?
    public var buds: String?
    public var hardinessHabitat: String?
    public var miscellaneous: String?
    public var url: String?
    public var isPreferred: Bool
    public var createdAt: Date
    public var updatedAt: Date
    /// When each note field of the row was last written, for those not written at `updatedAt` (`TimedFields`):
    /// kept for sync, not part of the species-source routes' JSON. A write through those routes writes the
    /// whole row (`apply` clears it).
    public var fieldTimes: [NoteFields.Field: Date] = [:]

    public init(
        id: Int = 0, uuid: UUID = UUID(), scientificName: String, sourceId: Int, localNames: [String] = [],
        range: String? = nil, growthHabit: String? = nil, leaves: String? = nil, flowers: String? = nil,
        fruits: String? = nil, bark: String? = nil, twigs: String? = nil, buds: String? = nil,
        hardinessHabitat: String? = nil, miscellaneous: String? = nil, url: String? = nil, isPreferred: Bool = false,
        createdAt: Date = Date(), updatedAt: Date = Date()
    ) {
        self.id = id
        self.uuid = uuid
        self.scientificName = scientificName
        self.sourceId = sourceId
        self.localNames = localNames
        self.range = range
        self.growthHabit = growthHabit
        self.leaves = leaves
        self.flowers = flowers
        self.fruits = fruits
        self.bark = bark
        self.twigs = twigs
        self.buds = buds
        self.hardinessHabitat = hardinessHabitat
        self.miscellaneous = miscellaneous
        self.url = url
        self.isPreferred = isPreferred
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, uuid
        case scientificName = "scientific_name"
        case sourceId = "source_id"
        case localNames = "local_names"
        case range
        case growthHabit = "growth_habit"
        case leaves, flowers, fruits, bark, twigs, buds
        case hardinessHabitat = "hardiness_habitat"
        case miscellaneous, url
        case isPreferred = "is_preferred"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case sourceName = "source_name"
        case sourceURL = "source_url"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let patch = try SpeciesSourcePatch(from: decoder)
        self.init(
            id: try container.decodeIfPresent(Int.self, forKey: .id) ?? 0,
            uuid: try container.decodeIDIfPresent(forKey: .uuid) ?? UUID(),
            scientificName: try container.decode(String.self, forKey: .scientificName),
            sourceId: try container.decode(Int.self, forKey: .sourceId),
            createdAt: try container.decodeIfPresent(String.self, forKey: .createdAt).flatMap(WireTime.parse) ?? Date(),
            updatedAt: try container.decodeIfPresent(String.self, forKey: .updatedAt).flatMap(WireTime.parse) ?? Date()
        )
        // Reading applies no write rule: what the server or file holds is accepted.
        merge(patch)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try encodeFields(into: &container)
    }

    /// Writes every wire field; shared with the attributed (source-embedding) form.
    func encodeFields(into container: inout KeyedEncodingContainer<CodingKeys>) throws {
        try container.encode(id, forKey: .id)
        try container.encode(uuid.wireString, forKey: .uuid)
        try container.encode(scientificName, forKey: .scientificName)
        try container.encode(sourceId, forKey: .sourceId)
        try container.encodeUnlessEmpty(localNames, forKey: .localNames)
        try container.encodeIfPresent(range, forKey: .range)
        try container.encodeIfPresent(growthHabit, forKey: .growthHabit)
        try container.encodeIfPresent(leaves, forKey: .leaves)
        try container.encodeIfPresent(flowers, forKey: .flowers)
        try container.encodeIfPresent(fruits, forKey: .fruits)
        try container.encodeIfPresent(bark, forKey: .bark)
        try container.encodeIfPresent(twigs, forKey: .twigs)
        try container.encodeIfPresent(buds, forKey: .buds)
        try container.encodeIfPresent(hardinessHabitat, forKey: .hardinessHabitat)
        try container.encodeIfPresent(miscellaneous, forKey: .miscellaneous)
        try container.encodeIfPresent(url, forKey: .url)
        try container.encode(isPreferred, forKey: .isPreferred)
        try container.encode(WireTime.format(createdAt), forKey: .createdAt)
        try container.encode(WireTime.format(updatedAt), forKey: .updatedAt)
    }

    /// Applies a partial update; species and source never change, then validates.
    public mutating func apply(_ patch: SpeciesSourcePatch) throws {
        merge(patch)
        fieldTimes = [:]
        try validate()
    }

    /// Takes the fields a patch names, unvalidated; species and source never change.
    private mutating func merge(_ patch: SpeciesSourcePatch) {
        localNames = patch.localNames.applied(to: localNames)
        range = patch.range.applied(to: range)
        growthHabit = patch.growthHabit.applied(to: growthHabit)
        leaves = patch.leaves.applied(to: leaves)
        flowers = patch.flowers.applied(to: flowers)
        fruits = patch.fruits.applied(to: fruits)
        bark = patch.bark.applied(to: bark)
        twigs = patch.twigs.applied(to: twigs)
        buds = patch.buds.applied(to: buds)
        hardinessHabitat = patch.hardinessHabitat.applied(to: hardinessHabitat)
        miscellaneous = patch.miscellaneous.applied(to: miscellaneous)
        url = patch.url.applied(to: url)
        isPreferred = patch.isPreferred.applied(to: isPreferred) ?? false
    }

    /// Throws a validation error naming every invalid field.
    public func validate() throws {
        var validator = Validator()
        validator.list(localNames, "local_names")
        let texts: [(String?, String)] = [
            (range, "range"), (growthHabit, "growth_habit"), (leaves, "leaves"), (flowers, "flowers"),
            (fruits, "fruits"), (bark, "bark"), (twigs, "twigs"), (buds, "buds"),
            (hardinessHabitat, "hardiness_habitat"), (miscellaneous, "miscellaneous"),
        ]
        for (value, field) in texts {
            validator.length(value, field, 0...FieldLimits.longText)
        }
        validator.length(url, "url", 0...FieldLimits.shortText)
        try validator.check()
    }
}

/// A species-source create or update request (`source_id` is read separately on create).
public struct SpeciesSourcePatch: Codable, Sendable {
    public var sourceId: Patch<Int> = .absent
    public var localNames: Patch<[String]> = .absent
    public var range: Patch<String> = .absent
    public var growthHabit: Patch<String> = .absent
    public var leaves: Patch<String> = .absent
    public var flowers: Patch<String> = .absent
    public var fruits: Patch<String> = .absent
    public var bark: Patch<String> = .absent
    public var twigs: Patch<String> = .absent
    public var buds: Patch<String> = .absent
    public var hardinessHabitat: Patch<String> = .absent
    public var miscellaneous: Patch<String> = .absent
    public var url: Patch<String> = .absent
    public var isPreferred: Patch<Bool> = .absent

    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: SpeciesSource.CodingKeys.self)
        sourceId = try container.patch(.sourceId)
        localNames = try container.patch(.localNames)
        range = try container.patch(.range)
        growthHabit = try container.patch(.growthHabit)
        leaves = try container.patch(.leaves)
        flowers = try container.patch(.flowers)
        fruits = try container.patch(.fruits)
        bark = try container.patch(.bark)
        twigs = try container.patch(.twigs)
        buds = try container.patch(.buds)
        hardinessHabitat = try container.patch(.hardinessHabitat)
        miscellaneous = try container.patch(.miscellaneous)
        url = try container.patch(.url)
        isPreferred = try container.patch(.isPreferred)
    }

    /// Encodes the patch as a request body: absent fields left out, cleared ones as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SpeciesSource.CodingKeys.self)
        try container.encode(sourceId, forKey: .sourceId)
        try container.encode(localNames, forKey: .localNames)
        try container.encode(range, forKey: .range)
        try container.encode(growthHabit, forKey: .growthHabit)
        try container.encode(leaves, forKey: .leaves)
        try container.encode(flowers, forKey: .flowers)
        try container.encode(fruits, forKey: .fruits)
        try container.encode(bark, forKey: .bark)
        try container.encode(twigs, forKey: .twigs)
        try container.encode(buds, forKey: .buds)
        try container.encode(hardinessHabitat, forKey: .hardinessHabitat)
        try container.encode(miscellaneous, forKey: .miscellaneous)
        try container.encode(url, forKey: .url)
        try container.encode(isPreferred, forKey: .isPreferred)
    }
}

/// A species-source row with its source's name and url, as `/species/{name}/full` and the export embed it.
public struct AttributedSpeciesSource: Encodable, Hashable, Sendable {
    public var record: SpeciesSource
    public var sourceName: String
    public var sourceURL: String?

    public init(record: SpeciesSource, sourceName: String, sourceURL: String?) {
        self.record = record
        self.sourceName = sourceName
        self.sourceURL = sourceURL
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SpeciesSource.CodingKeys.self)
        try record.encodeFields(into: &container)
        try container.encode(sourceName, forKey: .sourceName)
        try container.encodeIfPresent(sourceURL, forKey: .sourceURL)
    }
}
