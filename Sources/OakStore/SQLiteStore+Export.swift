import Foundation
import GRDB
import NIOCore
import OakModels

extension SQLiteStore {
    /// The export, rebuilt only when the change log has moved since the cached copy; concurrent requests
    /// for a new version share one rebuild, which renders again only the species changed since.
    public func export() async throws -> ExportSnapshot {
        let version = try await read { db in try Self.changeLogVersion(db) }
        return try await exportCache.snapshot(at: version) { previous in
            try await self.read { db in try ExportLayout.build(db, after: previous) }
        }
    }
}

/// The columns of the export query, in order: a species' columns, then those of one of its sources
/// (NULL for a species without sources). `joinedSourceID` is NULL too when the row's source is missing.
enum ExportColumn: Int32, CaseIterable {
    case rowid, scientificName, author, isHybrid, conservationStatus, subgenus, section, subsection, complex
    case parent1, parent2, hybrids, closelyRelatedTo, subspeciesVarieties, synonyms, externalLinks
    case joinedSourceID, id, uuid, sourceScientificName, sourceId, localNames, range, growthHabit, leaves, flowers
    case fruits, bark, twigs, buds, hardinessHabitat, miscellaneous, url, isPreferred, createdAt, updatedAt
    case sourceName, sourceURL

    private var expression: String {
        switch self {
        case .rowid: "e.rowid"
        case .scientificName, .author, .isHybrid, .conservationStatus, .subgenus, .section, .subsection, .complex,
            .parent1, .parent2, .hybrids, .closelyRelatedTo, .subspeciesVarieties, .synonyms, .externalLinks:
            "e.\(ColumnCoding.snakeCase("\(self)"))"
        case .joinedSourceID: "s.id"
        case .sourceScientificName: "ss.scientific_name"
        case .sourceName: "s.name"
        case .sourceURL: "s.url"
        default: "ss.\(ColumnCoding.snakeCase("\(self)"))"
        }
    }

    /// Every species in name order, each followed by its sources as the species routes order them.
    static let query = select(where: "")

    /// The same for the species named in a JSON array (the argument).
    static let namedQuery = select(where: "WHERE e.scientific_name IN (SELECT value FROM json_each(?))")

    private static func select(where condition: String) -> String {
        """
        SELECT \(allCases.map(\.expression).joined(separator: ", "))
        FROM oak_entries e
        LEFT JOIN species_sources ss ON ss.scientific_name = e.scientific_name
        LEFT JOIN sources s ON s.id = ss.source_id
        \(condition)
        ORDER BY e.scientific_name, ss.is_preferred DESC, ss.source_id
        """
    }
}

extension JSONOutput {
    private typealias Member = ColumnMember<ExportColumn>

    // The members of an exported species (keys sorted, as in every response) before its `sources` array,
    // after it, and in its `taxonomy` object around the constant genus.
    private static let speciesHead: [Member] = [
        Member("author", .author), Member("closely_related_to", .closelyRelatedTo, .stringList),
        Member("conservation_status", .conservationStatus), Member("external_links", .externalLinks, .valueList),
        Member("hybrids", .hybrids, .stringList), Member("is_hybrid", .isHybrid, .boolean), Member("name", .scientificName),
        Member("parent1", .parent1), Member("parent2", .parent2),
    ]
    private static let speciesTail: [Member] = [
        Member("subspecies_varieties", .subspeciesVarieties, .stringList), Member("synonyms", .synonyms, .stringList),
    ]
    private static let taxonomyBeforeGenus: [Member] = [Member("complex", .complex)]
    private static let taxonomyAfterGenus: [Member] = [
        Member("section", .section), Member("subgenus", .subgenus), Member("subsection", .subsection),
    ]
    /// The members of one source of a species (`AttributedSpeciesSource`).
    private static let attributedSource: [Member] = [
        Member("bark", .bark), Member("buds", .buds), Member("created_at", .createdAt, .timestamp), Member("flowers", .flowers),
        Member("fruits", .fruits), Member("growth_habit", .growthHabit), Member("hardiness_habitat", .hardinessHabitat),
        Member("id", .id, .integer), Member("is_preferred", .isPreferred, .boolean), Member("leaves", .leaves),
        Member("local_names", .localNames, .stringList), Member("miscellaneous", .miscellaneous), Member("range", .range),
        Member("scientific_name", .sourceScientificName), Member("source_id", .sourceId, .integer),
        Member("source_name", .sourceName), Member("source_url", .sourceURL), Member("twigs", .twigs),
        Member("updated_at", .updatedAt, .timestamp), Member("url", .url), Member("uuid", .uuid, .uuid),
    ]

    /// Opens a species of the export up to its `sources` array, and puts what follows that array into
    /// `tail`, written when the species closes.
    mutating func exportedSpeciesHead(_ columns: StatementColumns, tail: inout JSONOutput) throws {
        raw("{")
        try members(Self.speciesHead, columns)
        raw(#","sources":["#)
        tail.clear()
        tail.raw("],")
        try tail.members(Self.speciesTail, columns)
        tail.raw(#","taxonomy":{"#)
        try tail.members(Self.taxonomyBeforeGenus, columns)
        tail.raw(#","genus":"Quercus","#)
        try tail.members(Self.taxonomyAfterGenus, columns)
        tail.raw("}}")
    }

    /// One source of a species in the export.
    mutating func attributedSpeciesSource(_ columns: StatementColumns) throws {
        raw("{")
        try members(Self.attributedSource, columns)
        raw("}")
    }
}
