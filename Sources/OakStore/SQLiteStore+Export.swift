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
/// (NULL for a species without sources).
enum ExportColumn: Int32, CaseIterable {
    case rowid, scientificName, author, isHybrid, conservationStatus, subgenus, section, subsection, complex
    case parent1, parent2, hybrids, closelyRelatedTo, subspeciesVarieties, synonyms, externalLinks
    case sourceRowID, id, uuid, sourceScientificName, sourceId, localNames, range, growthHabit, leaves, flowers
    case fruits, bark, twigs, buds, hardinessHabitat, miscellaneous, url, isPreferred, createdAt, updatedAt
    case sourceName, sourceURL

    private var expression: String {
        switch self {
        case .rowid: "e.rowid"
        case .scientificName, .author, .isHybrid, .conservationStatus, .subgenus, .section, .subsection, .complex,
            .parent1, .parent2, .hybrids, .closelyRelatedTo, .subspeciesVarieties, .synonyms, .externalLinks:
            "e.\(ColumnCoding.snakeCase("\(self)"))"
        case .sourceRowID: "s.id"
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
    /// Opens a species of the export (keys sorted, as every response) up to its `sources` array, and puts
    /// the keys after that array into `tail`, written when the species closes.
    mutating func exportedSpeciesHead(_ columns: StatementColumns, tail: inout JSONOutput) throws {
        typealias C = ExportColumn
        raw(#""author":"#); text(columns, C.author.rawValue)
        raw(#","closely_related_to":"#); stringList(columns, C.closelyRelatedTo.rawValue)
        raw(#","conservation_status":"#); text(columns, C.conservationStatus.rawValue)
        raw(#","external_links":"#); try valueList(columns, C.externalLinks.rawValue)
        raw(#","hybrids":"#); stringList(columns, C.hybrids.rawValue)
        raw(#","is_hybrid":"#); bool(columns, C.isHybrid.rawValue)
        raw(#","name":"#); text(columns, C.scientificName.rawValue)
        raw(#","parent1":"#); text(columns, C.parent1.rawValue)
        raw(#","parent2":"#); text(columns, C.parent2.rawValue)
        raw(#","sources":["#)
        tail.clear()
        tail.raw(#"],"subspecies_varieties":"#); tail.stringList(columns, C.subspeciesVarieties.rawValue)
        tail.raw(#","synonyms":"#); tail.stringList(columns, C.synonyms.rawValue)
        tail.raw(#","taxonomy":{"complex":"#); tail.text(columns, C.complex.rawValue)
        tail.raw(#","genus":"Quercus","section":"#); tail.text(columns, C.section.rawValue)
        tail.raw(#","subgenus":"#); tail.text(columns, C.subgenus.rawValue)
        tail.raw(#","subsection":"#); tail.text(columns, C.subsection.rawValue)
        tail.raw("}}")
    }

    mutating func close(species tail: JSONOutput) {
        append(tail)
    }

    /// One source of a species in the export (`AttributedSpeciesSource` keys, sorted).
    mutating func attributedSpeciesSource(_ columns: StatementColumns) {
        typealias C = ExportColumn
        raw(#"{"bark":"#); text(columns, C.bark.rawValue)
        raw(#","buds":"#); text(columns, C.buds.rawValue)
        raw(#","created_at":"#); timestamp(columns, C.createdAt.rawValue)
        raw(#","flowers":"#); text(columns, C.flowers.rawValue)
        raw(#","fruits":"#); text(columns, C.fruits.rawValue)
        raw(#","growth_habit":"#); text(columns, C.growthHabit.rawValue)
        raw(#","hardiness_habitat":"#); text(columns, C.hardinessHabitat.rawValue)
        raw(#","id":"#); int(columns.int(C.id.rawValue))
        raw(#","is_preferred":"#); bool(columns, C.isPreferred.rawValue)
        raw(#","leaves":"#); text(columns, C.leaves.rawValue)
        raw(#","local_names":"#); stringList(columns, C.localNames.rawValue)
        raw(#","miscellaneous":"#); text(columns, C.miscellaneous.rawValue)
        raw(#","range":"#); text(columns, C.range.rawValue)
        raw(#","scientific_name":"#); text(columns, C.sourceScientificName.rawValue)
        raw(#","source_id":"#); int(columns.int(C.sourceId.rawValue))
        raw(#","source_name":"#); text(columns, C.sourceName.rawValue)
        raw(#","source_url":"#); text(columns, C.sourceURL.rawValue)
        raw(#","twigs":"#); text(columns, C.twigs.rawValue)
        raw(#","updated_at":"#); timestamp(columns, C.updatedAt.rawValue)
        raw(#","url":"#); text(columns, C.url.rawValue)
        raw(#","uuid":"#); uuid(columns, C.uuid.rawValue)
        raw("}")
    }
}
