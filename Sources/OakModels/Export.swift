import Foundation

/// The export document (`GET /api/v1/export`, `oak export`): the `quercus_data.json` format the original
/// web and iOS apps load. Absent optional fields and empty lists are left out, as the original writes them;
/// `taxonomy.subgenus` and `taxonomy.section` are always present (null when unknown).
public struct ExportFile: Codable, Sendable {
    /// Always written; files from elsewhere may lack it.
    public var metadata: ExportMetadata?
    /// Every source, with its license.
    public var sources: [ExportSource]
    public var species: [ExportSpecies]

    public init(metadata: ExportMetadata?, sources: [ExportSource], species: [ExportSpecies]) {
        self.metadata = metadata
        self.sources = sources
        self.species = species
    }
}

/// What the export describes: the time of the data's last change (as `version` and `exported_at`), so
/// that the same data always exports the same document, and how many species it holds.
public struct ExportMetadata: Codable, Hashable, Sendable {
    public var version: String
    public var exportedAt: String
    public var speciesCount: Int

    public init(lastChange: Date, speciesCount: Int) {
        version = WireTime.format(lastChange)
        exportedAt = version
        self.speciesCount = speciesCount
    }

    enum CodingKeys: String, CodingKey {
        case version
        case exportedAt = "exported_at"
        case speciesCount = "species_count"
    }
}

/// A source at the top of the export: the source's fields, absent ones left out.
public struct ExportSource: Codable, Hashable, Sendable {
    public var source: Source

    public init(_ source: Source) {
        var source = source
        source.speciesCount = nil
        self.source = source
    }

    public init(from decoder: any Decoder) throws {
        source = try Source(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Source.CodingKeys.self)
        try container.encode(source.id, forKey: .id)
        try container.encode(source.sourceType, forKey: .sourceType)
        try container.encode(source.name, forKey: .name)
        try container.encodeIfPresent(source.description, forKey: .description)
        try container.encodeIfPresent(source.author, forKey: .author)
        try container.encodeIfPresent(source.year, forKey: .year)
        try container.encodeIfPresent(source.url, forKey: .url)
        try container.encodeIfPresent(source.isbn, forKey: .isbn)
        try container.encodeIfPresent(source.doi, forKey: .doi)
        try container.encodeIfPresent(source.notes, forKey: .notes)
        try container.encodeIfPresent(source.license, forKey: .license)
        try container.encodeIfPresent(source.licenseURL, forKey: .licenseURL)
    }
}

/// A species in the export, with its taxonomy nested and every source's data attributed.
public struct ExportSpecies: Codable, Hashable, Sendable {
    public var name: String
    public var author: String?
    public var isHybrid: Bool
    public var conservationStatus: String?
    public var taxonomy: ExportTaxonomy
    public var parent1: String?
    public var parent2: String?
    public var hybrids: [String]
    public var closelyRelatedTo: [String]
    public var subspeciesVarieties: [String]
    public var synonyms: [String]
    public var externalLinks: [JSONValue]
    public var sources: [ExportSourceData]

    /// A species and its sources' data; `sources` gives each source's license by id.
    public init(species: Species, data: [AttributedSpeciesSource], sources: [Int: Source]) {
        name = species.scientificName
        author = species.author
        isHybrid = species.isHybrid
        conservationStatus = species.conservationStatus
        taxonomy = ExportTaxonomy(
            subgenus: species.subgenus, section: species.section, subsection: species.subsection, complex: species.complex)
        parent1 = species.parent1
        parent2 = species.parent2
        hybrids = species.hybrids
        closelyRelatedTo = species.closelyRelatedTo
        subspeciesVarieties = species.subspeciesVarieties
        synonyms = species.synonyms
        externalLinks = species.externalLinks
        self.sources = data.map { ExportSourceData($0, source: sources[$0.record.sourceId]) }
    }

    /// The species this entry describes (without its sources' data).
    public var asSpecies: Species {
        Species(
            scientificName: name, author: author, isHybrid: isHybrid, conservationStatus: conservationStatus,
            subgenus: taxonomy.subgenus, section: taxonomy.section, subsection: taxonomy.subsection, complex: taxonomy.complex,
            parent1: parent1, parent2: parent2, hybrids: hybrids, closelyRelatedTo: closelyRelatedTo,
            subspeciesVarieties: subspeciesVarieties, synonyms: synonyms, externalLinks: externalLinks)
    }

    enum CodingKeys: String, CodingKey {
        case name, author
        case isHybrid = "is_hybrid"
        case conservationStatus = "conservation_status"
        case taxonomy, parent1, parent2
        case hybrids
        case closelyRelatedTo = "closely_related_to"
        case subspeciesVarieties = "subspecies_varieties"
        case synonyms
        case externalLinks = "external_links"
        case sources
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        author = try container.decodeIfPresent(String.self, forKey: .author)
        isHybrid = try container.decodeIfPresent(Bool.self, forKey: .isHybrid) ?? false
        conservationStatus = try container.decodeIfPresent(String.self, forKey: .conservationStatus)
        taxonomy = try container.decodeIfPresent(ExportTaxonomy.self, forKey: .taxonomy) ?? ExportTaxonomy()
        parent1 = try container.decodeIfPresent(String.self, forKey: .parent1)
        parent2 = try container.decodeIfPresent(String.self, forKey: .parent2)
        hybrids = try container.decodeIfPresent([String].self, forKey: .hybrids) ?? []
        closelyRelatedTo = try container.decodeIfPresent([String].self, forKey: .closelyRelatedTo) ?? []
        subspeciesVarieties = try container.decodeIfPresent([String].self, forKey: .subspeciesVarieties) ?? []
        synonyms = try container.decodeIfPresent([String].self, forKey: .synonyms) ?? []
        externalLinks = try container.decodeIfPresent([JSONValue].self, forKey: .externalLinks) ?? []
        sources = try container.decodeIfPresent([ExportSourceData].self, forKey: .sources) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(author, forKey: .author)
        try container.encode(isHybrid, forKey: .isHybrid)
        try container.encodeIfPresent(conservationStatus, forKey: .conservationStatus)
        try container.encode(taxonomy, forKey: .taxonomy)
        try container.encodeIfPresent(parent1, forKey: .parent1)
        try container.encodeIfPresent(parent2, forKey: .parent2)
        try container.encodeUnlessEmpty(hybrids, forKey: .hybrids)
        try container.encodeUnlessEmpty(closelyRelatedTo, forKey: .closelyRelatedTo)
        try container.encodeUnlessEmpty(subspeciesVarieties, forKey: .subspeciesVarieties)
        try container.encodeUnlessEmpty(synonyms, forKey: .synonyms)
        try container.encodeUnlessEmpty(externalLinks, forKey: .externalLinks)
        try container.encodeUnlessEmpty(sources, forKey: .sources)
    }
}

/// A species' place in the taxonomy, under the constant genus.
public struct ExportTaxonomy: Codable, Hashable, Sendable {
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

    /// Every species is an oak.
    public static let genus = "Quercus"

    enum CodingKeys: String, CodingKey { case genus, subgenus, section, subsection, complex }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        subgenus = try container.decodeIfPresent(String.self, forKey: .subgenus)
        section = try container.decodeIfPresent(String.self, forKey: .section)
        subsection = try container.decodeIfPresent(String.self, forKey: .subsection)
        complex = try container.decodeIfPresent(String.self, forKey: .complex)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.genus, forKey: .genus)
        try container.encodeNullable(subgenus, forKey: .subgenus)
        try container.encodeNullable(section, forKey: .section)
        try container.encodeIfPresent(subsection, forKey: .subsection)
        try container.encodeIfPresent(complex, forKey: .complex)
    }
}

/// One source's data about a species in the export, with the source's name, address and license.
public struct ExportSourceData: Codable, Hashable, Sendable {
    public var sourceId: Int
    public var sourceName: String
    public var sourceURL: String?
    public var license: String?
    public var licenseURL: String?
    public var isPreferred: Bool
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

    public init(_ data: AttributedSpeciesSource, source: Source?) {
        let record = data.record
        sourceId = record.sourceId
        sourceName = data.sourceName
        sourceURL = data.sourceURL
        license = source?.license
        licenseURL = source?.licenseURL
        isPreferred = record.isPreferred
        localNames = record.localNames
        range = record.range
        growthHabit = record.growthHabit
        leaves = record.leaves
        flowers = record.flowers
        fruits = record.fruits
        bark = record.bark
        twigs = record.twigs
        buds = record.buds
        hardinessHabitat = record.hardinessHabitat
        miscellaneous = record.miscellaneous
        url = record.url
    }

    /// The species-source row this entry describes, for the species named.
    public func record(of species: String) -> SpeciesSource {
        SpeciesSource(
            scientificName: species, sourceId: sourceId, localNames: localNames, range: range, growthHabit: growthHabit,
            leaves: leaves, flowers: flowers, fruits: fruits, bark: bark, twigs: twigs, buds: buds,
            hardinessHabitat: hardinessHabitat, miscellaneous: miscellaneous, url: url, isPreferred: isPreferred)
    }

    enum CodingKeys: String, CodingKey {
        case sourceId = "source_id"
        case sourceName = "source_name"
        case sourceURL = "source_url"
        case license
        case licenseURL = "license_url"
        case isPreferred = "is_preferred"
        case localNames = "local_names"
        case range
        case growthHabit = "growth_habit"
        case leaves, flowers, fruits, bark, twigs, buds
        case hardinessHabitat = "hardiness_habitat"
        case miscellaneous, url
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sourceId = try container.decode(Int.self, forKey: .sourceId)
        sourceName = try container.decodeIfPresent(String.self, forKey: .sourceName) ?? ""
        sourceURL = try container.decodeIfPresent(String.self, forKey: .sourceURL)
        license = try container.decodeIfPresent(String.self, forKey: .license)
        licenseURL = try container.decodeIfPresent(String.self, forKey: .licenseURL)
        isPreferred = try container.decodeIfPresent(Bool.self, forKey: .isPreferred) ?? false
        localNames = try container.decodeIfPresent([String].self, forKey: .localNames) ?? []
        range = try container.decodeIfPresent(String.self, forKey: .range)
        growthHabit = try container.decodeIfPresent(String.self, forKey: .growthHabit)
        leaves = try container.decodeIfPresent(String.self, forKey: .leaves)
        flowers = try container.decodeIfPresent(String.self, forKey: .flowers)
        fruits = try container.decodeIfPresent(String.self, forKey: .fruits)
        bark = try container.decodeIfPresent(String.self, forKey: .bark)
        twigs = try container.decodeIfPresent(String.self, forKey: .twigs)
        buds = try container.decodeIfPresent(String.self, forKey: .buds)
        hardinessHabitat = try container.decodeIfPresent(String.self, forKey: .hardinessHabitat)
        miscellaneous = try container.decodeIfPresent(String.self, forKey: .miscellaneous)
        url = try container.decodeIfPresent(String.self, forKey: .url)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sourceId, forKey: .sourceId)
        try container.encode(sourceName, forKey: .sourceName)
        try container.encodeIfPresent(sourceURL, forKey: .sourceURL)
        try container.encodeIfPresent(license, forKey: .license)
        try container.encodeIfPresent(licenseURL, forKey: .licenseURL)
        try container.encode(isPreferred, forKey: .isPreferred)
        try container.encodeUnlessEmpty(localNames, forKey: .localNames)
        for (value, key) in [
            (range, CodingKeys.range), (growthHabit, .growthHabit), (leaves, .leaves), (flowers, .flowers), (fruits, .fruits),
            (bark, .bark), (twigs, .twigs), (buds, .buds), (hardinessHabitat, .hardinessHabitat),
            (miscellaneous, .miscellaneous), (url, .url),
        ] {
            try container.encodeIfPresent(value, forKey: key)
        }
    }
}
