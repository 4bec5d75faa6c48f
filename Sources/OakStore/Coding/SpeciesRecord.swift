import OakModels

/// The columns of a species record as sync pages carry it (`Species` as its routes encode it), from
/// `oak_entries`: written from the columns as notes are (through `JSONEncoder` they were 6% of a full pull).
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

    /// A species' members (`Species` keys, sorted; its name and whether it is a hybrid always, the rest when
    /// they have a value).
    @usableFromInline static let speciesRecordMembers: [SpeciesMember] = [
        SpeciesMember("author", .author), SpeciesMember("closely_related_to", .closelyRelatedTo, .stringList),
        SpeciesMember("complex", .complex), SpeciesMember("conservation_status", .conservationStatus),
        SpeciesMember("external_links", .externalLinks, .valueList), SpeciesMember("hybrids", .hybrids, .stringList),
        SpeciesMember("is_hybrid", .isHybrid, .boolean, keepsNull: true), SpeciesMember("parent1", .parent1),
        SpeciesMember("parent2", .parent2), SpeciesMember("scientific_name", .scientificName, keepsNull: true),
        SpeciesMember("section", .section), SpeciesMember("subgenus", .subgenus), SpeciesMember("subsection", .subsection),
        SpeciesMember("subspecies_varieties", .subspeciesVarieties, .stringList), SpeciesMember("synonyms", .synonyms, .stringList),
    ]

    /// A species record from the columns of `SpeciesRecordColumn`.
    @inlinable
    public mutating func speciesRecord(_ columns: some ColumnReader) throws {
        raw("{")
        try members(Self.speciesRecordMembers, columns)
        raw("}")
    }
}
