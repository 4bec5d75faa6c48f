import OakModels

/// The columns of a species record as sync pages carry it (`Species` as its routes encode it), from
/// `oak_entries`: written from the columns as notes are, not through `Species` and `JSONEncoder` (see
/// BENCHMARKS.md, "Server round 2", item 16).
public enum SpeciesRecordColumn: Int32, CaseIterable, Sendable {
    case scientificName, author, isHybrid, conservationStatus, subgenus, section, subsection, complex, parent1, parent2
    case hybrids, closelyRelatedTo, subspeciesVarieties, synonyms, externalLinks

    /// The columns' names, in order, for a SELECT of `oak_entries`.
    public static let list = allCases.map { ColumnCoding.snakeCase("\($0)") }.joined(separator: ", ")

    /// The columns, from `oak_entries`.
    package static let selection = "SELECT \(list) FROM oak_entries"
}

extension JSONOutput {
    @usableFromInline typealias SpeciesMember = ColumnMember<SpeciesRecordColumn>

    @usableFromInline typealias SourceRowMember = ColumnMember<AttributedSourceColumn>

    // A species' members (`Species` keys, sorted; its name and whether it is a hybrid always, the rest when they
    // have a value), in two parts around where a full record's `sources` sorts.
    @usableFromInline static let speciesMembersBeforeSources: [SpeciesMember] = [
        SpeciesMember("author", .author), SpeciesMember("closely_related_to", .closelyRelatedTo, .stringList),
        SpeciesMember("complex", .complex), SpeciesMember("conservation_status", .conservationStatus),
        SpeciesMember("external_links", .externalLinks, .valueList), SpeciesMember("hybrids", .hybrids, .stringList),
        SpeciesMember("is_hybrid", .isHybrid, .boolean, keepsNull: true), SpeciesMember("parent1", .parent1),
        SpeciesMember("parent2", .parent2), SpeciesMember("scientific_name", .scientificName, keepsNull: true),
        SpeciesMember("section", .section),
    ]
    @usableFromInline static let speciesMembersAfterSources: [SpeciesMember] = [
        SpeciesMember("subgenus", .subgenus), SpeciesMember("subsection", .subsection),
        SpeciesMember("subspecies_varieties", .subspeciesVarieties, .stringList), SpeciesMember("synonyms", .synonyms, .stringList),
    ]

    /// A source row's members (`AttributedSpeciesSource` keys, sorted; optional texts and an empty list of local
    /// names left out).
    @usableFromInline static let sourceRowMembers: [SourceRowMember] = [
        SourceRowMember("bark", .bark), SourceRowMember("buds", .buds), SourceRowMember("created_at", .createdAt, .timestamp, keepsNull: true),
        SourceRowMember("flowers", .flowers), SourceRowMember("fruits", .fruits), SourceRowMember("growth_habit", .growthHabit),
        SourceRowMember("hardiness_habitat", .hardinessHabitat), SourceRowMember("id", .id, .integer, keepsNull: true),
        SourceRowMember("is_preferred", .isPreferred, .boolean, keepsNull: true), SourceRowMember("leaves", .leaves),
        SourceRowMember("local_names", .localNames, .stringList), SourceRowMember("miscellaneous", .miscellaneous),
        SourceRowMember("range", .range), SourceRowMember("scientific_name", .scientificName, keepsNull: true),
        SourceRowMember("source_id", .sourceId, .integer, keepsNull: true), SourceRowMember("source_name", .sourceName, keepsNull: true),
        SourceRowMember("source_url", .sourceURL), SourceRowMember("twigs", .twigs),
        SourceRowMember("updated_at", .updatedAt, .timestamp, keepsNull: true), SourceRowMember("url", .url),
        SourceRowMember("uuid", .uuid, .uuid, keepsNull: true),
    ]

    /// A species record from the columns of `SpeciesRecordColumn`.
    @inlinable
    public mutating func speciesRecord(_ columns: some ColumnReader) throws {
        raw("{")
        let separated = try members(Self.speciesMembersBeforeSources, columns)
        try members(Self.speciesMembersAfterSources, columns, after: separated)
        raw("}")
    }

    // A species' full record (`SpeciesFull`, as `GET /species/{name}/full` sends it) is written in three steps:
    // `beginSpeciesFull`, `speciesFullSourceRow` for each of its source rows, `endSpeciesFull`.

    /// Starts a full record from the species' columns (`SpeciesRecordColumn`): its members before `sources`, and
    /// the opening of that list.
    @inlinable
    public mutating func beginSpeciesFull(_ species: some ColumnReader) throws {
        raw("{")
        try members(Self.speciesMembersBeforeSources, species)
        raw(#","sources":["#)
    }

    /// One of the species' source rows (`AttributedSourceColumn`); `first` says whether it opens the list.
    @inlinable
    public mutating func speciesFullSourceRow(_ row: some ColumnReader, first: Bool) throws {
        raw(first ? "{" : ",{")
        try members(Self.sourceRowMembers, row)
        raw("}")
    }

    /// Ends a full record: the list closed, then the species' remaining members.
    @inlinable
    public mutating func endSpeciesFull(_ species: some ColumnReader) throws {
        raw("]")
        try members(Self.speciesMembersAfterSources, species, after: true)
        raw("}")
    }
}

/// The columns of a species' source row with its source's name and URL (`AttributedSpeciesSource`), from
/// `species_sources ss` joined with `sources s`.
public enum AttributedSourceColumn: Int32, CaseIterable, Sendable {
    case id, uuid, scientificName, sourceId, localNames, range, growthHabit, leaves, flowers, fruits, bark, twigs, buds
    case hardinessHabitat, miscellaneous, url, isPreferred, createdAt, updatedAt, sourceName, sourceURL

    private var expression: String {
        switch self {
        case .sourceName: "s.name"
        case .sourceURL: "s.url"
        default: "ss.\(ColumnCoding.snakeCase("\(self)"))"
        }
    }

    /// The order of a species' source rows (its full record, the export): the preferred one first, then by source id.
    package static let order = "ss.is_preferred DESC, ss.source_id"

    /// The columns, from a species' source rows and their sources (a backend adds its filter and `order`).
    package static let selection = "SELECT \(allCases.map(\.expression).joined(separator: ", ")) FROM species_sources ss JOIN sources s ON s.id = ss.source_id"
}
