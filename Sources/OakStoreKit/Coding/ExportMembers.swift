import Foundation
import OakModels

/// The columns of the export query, in order: a species' columns, then those of one of its sources
/// (NULL for a species without sources). `joinedSourceID` is NULL too when the row's source is missing.
package enum ExportColumn: Int32, CaseIterable {
    case speciesNumber, scientificName, author, isHybrid, conservationStatus, subgenus, section, subsection, complex
    case parent1, parent2, hybrids, closelyRelatedTo, subspeciesVarieties, synonyms, externalLinks
    case joinedSourceID, uuid, sourceId, localNames, range, growthHabit, leaves, flowers
    case fruits, bark, twigs, buds, hardinessHabitat, miscellaneous, url, isPreferred
    case sourceName, sourceURL, sourceLicense, sourceLicenseURL

    private func expression(speciesNumber: String) -> String {
        switch self {
        case .speciesNumber: speciesNumber
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

    /// The export query: species (of `oak_entries e`) in name order, each followed by its sources as the
    /// species routes order them. `speciesNumber` is SQL that differs between species and is the same for
    /// the rows of one; `condition` narrows the species.
    package static func select(speciesNumber: String, where condition: String) -> String {
        """
        SELECT \(allCases.map { $0.expression(speciesNumber: speciesNumber) }.joined(separator: ", "))
        FROM oak_entries e
        LEFT JOIN species_sources ss ON ss.scientific_name = e.scientific_name
        LEFT JOIN sources s ON s.id = ss.source_id
        \(condition)
        ORDER BY e.scientific_name, \(AttributedSourceColumn.order)
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
    package mutating func exportedSpeciesHead(_ columns: some ColumnReader, tail: inout JSONOutput) throws {
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
    package mutating func exportedSourceData(_ columns: some ColumnReader) throws {
        raw("{")
        try members(Self.sourceData, columns)
        raw("}")
    }
}

/// Renders the export's species objects from the rows of `ExportColumn.select` as they arrive: each species
/// with its sources' data, and the uuids of its species-source rows.
package struct ExportSpeciesRenderer {
    private var object = JSONOutput(capacity: 64 << 10)
    private var tail = JSONOutput(capacity: 1 << 10)
    private var current: (number: Int64, name: String)?
    private var rowIDs: [String] = []

    package init() {}

    /// Adds a row; the first row of another species finishes the previous one (see `finish`).
    package mutating func add(
        _ columns: some ColumnReader, _ each: (_ name: String, _ object: [UInt8], _ rowIDs: [String]) throws -> Void
    ) throws {
        let number = columns.int(ExportColumn.speciesNumber.rawValue)
        if number != current?.number {
            try finish(each)
            current = (number, columns.string(ExportColumn.scientificName.rawValue) ?? "")
            object.raw("{")
            try object.exportedSpeciesHead(columns, tail: &tail)
        }
        // Rows of a species without sources, and rows whose source is missing, carry no source.
        guard !columns.isNull(ExportColumn.joinedSourceID.rawValue) else { return }
        object.raw(rowIDs.isEmpty ? #","sources":["# : ",")
        rowIDs.append(columns.string(ExportColumn.uuid.rawValue) ?? "")
        try object.exportedSourceData(columns)
    }

    /// Hands the species being rendered to `each`: its name, its object and its rows' uuids.
    package mutating func finish(_ each: (_ name: String, _ object: [UInt8], _ rowIDs: [String]) throws -> Void) throws {
        guard let current else { return }
        // A species without sources' data has no `sources` member.
        if !rowIDs.isEmpty { object.raw("]") }
        object.append(tail)
        try each(current.name, object.bytes, rowIDs)
        object.clear()
        rowIDs.removeAll(keepingCapacity: true)
        self.current = nil
    }
}

extension JSONOutput {
    /// The export document up to its species: `metadata` (the time of the data's last change and the number
    /// of species) and every source.
    package static func exportHead(lastChange: Date, speciesCount: Int, sources: [Source]) throws -> [UInt8] {
        var output = JSONOutput(capacity: 4 << 10)
        output.raw(#"{"metadata":"#)
        try output.encoded(ExportMetadata(lastChange: lastChange, speciesCount: speciesCount))
        output.raw(#","sources":"#)
        try output.encoded(sources.map(ExportSource.init))
        output.raw(#","species":["#)
        return output.bytes
    }
}
