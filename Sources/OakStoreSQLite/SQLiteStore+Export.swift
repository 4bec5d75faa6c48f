import Foundation
import GRDB
import NIOCore
import OakModels
import OakStore

extension SQLiteStore {
    /// The export, rebuilt only when the change log has moved since the cached copy; concurrent requests
    /// for a new version share one rebuild, which renders again only the species changed since.
    public func export() async throws -> ExportSnapshot {
        let version = try read { db in try Self.changeLogVersion(db) }
        return try await exportCache.snapshot(at: version) { previous in
            try await self.longRead { db in try ExportLayout.build(db, after: previous) }
        }
    }
}

/// The columns of the export query, in order: a species' columns, then those of one of its sources
/// (NULL for a species without sources). `joinedSourceID` is NULL too when the row's source is missing.
enum ExportColumn: Int32, CaseIterable {
    case rowid, scientificName, author, isHybrid, conservationStatus, subgenus, section, subsection, complex
    case parent1, parent2, hybrids, closelyRelatedTo, subspeciesVarieties, synonyms, externalLinks
    case joinedSourceID, uuid, sourceId, localNames, range, growthHabit, leaves, flowers
    case fruits, bark, twigs, buds, hardinessHabitat, miscellaneous, url, isPreferred
    case sourceName, sourceURL, sourceLicense, sourceLicenseURL

    private var expression: String {
        switch self {
        case .rowid: "e.rowid"
        case .scientificName, .author, .isHybrid, .conservationStatus, .subgenus, .section, .subsection, .complex,
            .parent1, .parent2, .hybrids, .closelyRelatedTo, .subspeciesVarieties, .synonyms, .externalLinks:
            "e.\(ColumnCoding.snakeCase("\(self)"))"
        case .joinedSourceID: "s.id"
        case .sourceName: "s.name"
        case .sourceURL: "s.url"
        case .sourceLicense: "s.license"
        case .sourceLicenseURL: "s.license_url"
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

    // The members of an exported species (`ExportSpecies`; keys sorted, as in every response, absent ones
    // left out) before its `sources` array, after it, and in its `taxonomy` object around the constant genus.
    private static let speciesHead: [Member] = [
        Member("author", .author),
        Member("closely_related_to", .closelyRelatedTo, .stringList),
        Member("conservation_status", .conservationStatus),
        Member("external_links", .externalLinks, .valueList),
        Member("hybrids", .hybrids, .stringList), Member("is_hybrid", .isHybrid, .boolean),
        Member("name", .scientificName), Member("parent1", .parent1),
        Member("parent2", .parent2),
    ]
    private static let speciesTail: [Member] = [
        Member("subspecies_varieties", .subspeciesVarieties, .stringList),
        Member("synonyms", .synonyms, .stringList),
    ]
    private static let taxonomyBeforeGenus: [Member] = [Member("complex", .complex)]
    private static let taxonomyAfterGenus: [Member] = [
        Member("section", .section, keepsNull: true), Member("subgenus", .subgenus, keepsNull: true), Member("subsection", .subsection),
    ]
    /// The members of one source's data about a species (`ExportSourceData`).
    private static let sourceData: [Member] = [
        Member("bark", .bark), Member("buds", .buds),
        Member("flowers", .flowers), Member("fruits", .fruits),
        Member("growth_habit", .growthHabit),
        Member("hardiness_habitat", .hardinessHabitat), Member("is_preferred", .isPreferred, .boolean),
        Member("leaves", .leaves), Member("license", .sourceLicense),
        Member("license_url", .sourceLicenseURL),
        Member("local_names", .localNames, .stringList),
        Member("miscellaneous", .miscellaneous), Member("range", .range),
        Member("source_id", .sourceId, .integer), Member("source_name", .sourceName),
        Member("source_url", .sourceURL), Member("twigs", .twigs),
        Member("url", .url),
    ]

    /// Writes the members of an exported species that come before its `sources` array (without the
    /// opening brace), and puts what follows that array into `tail`, written when the species closes.
    mutating func exportedSpeciesHead(_ columns: StatementColumns, tail: inout JSONOutput) throws {
        try members(Self.speciesHead, columns)
        tail.clear()
        try tail.members(Self.speciesTail, columns, after: true)
        tail.raw(#","taxonomy":{"#)
        let wroteComplex = try tail.members(Self.taxonomyBeforeGenus, columns)
        tail.raw(wroteComplex ? #","genus":"Quercus""# : #""genus":"Quercus""#)
        try tail.members(Self.taxonomyAfterGenus, columns, after: true)
        tail.raw("}}")
    }

    /// One source's data about a species in the export.
    mutating func exportedSourceData(_ columns: StatementColumns) throws {
        raw("{")
        try members(Self.sourceData, columns)
        raw("}")
    }
}
