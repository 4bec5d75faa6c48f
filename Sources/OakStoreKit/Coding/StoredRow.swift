import Foundation
import OakModels
import OakStore

/// A row of one of the compendium's tables as a backend reads it, by column name. The models are read from
/// it and written as `StoredValue`s, so the mapping between columns and fields is written once for every
/// backend.
package protocol StoredRow {
    /// A text column, nil for NULL.
    func text(_ column: String) -> String?
    /// An integer column, nil for NULL.
    func integer(_ column: String) -> Int64?
}

extension StoredRow {
    /// A boolean column (an integer: NULL and 0 are false).
    package func bool(_ column: String) -> Bool {
        (integer(column) ?? 0) != 0
    }

    package func int(_ column: String) -> Int? {
        integer(column).map { Int($0) }
    }
}

/// A value written into a column: lists are JSON text and timestamps text (`WireTime.formatPrecise`), in
/// every backend, so rows copy between backends unchanged.
package enum StoredValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    case null

    package init(_ text: String?) {
        self = text.map { .text($0) } ?? .null
    }

    package init(_ number: Int?) {
        self = number.map { .integer(Int64($0)) } ?? .null
    }

    package init(_ flag: Bool) {
        self = .integer(flag ? 1 : 0)
    }

    package init(_ date: Date) {
        self = .text(WireTime.formatPrecise(date))
    }

    package init(list: [some Encodable]) {
        self = .text(ColumnCoding.json(list))
    }

    /// A list of strings (names), written without the encoder (see `ColumnCoding.json(_:)`).
    package init(list: [String]) {
        self = .text(ColumnCoding.json(list))
    }
}

extension Species {
    package init(row: some StoredRow) {
        self.init(
            scientificName: row.text("scientific_name") ?? "", author: row.text("author"), isHybrid: row.bool("is_hybrid"),
            conservationStatus: row.text("conservation_status"), subgenus: row.text("subgenus"), section: row.text("section"),
            subsection: row.text("subsection"), complex: row.text("complex"), parent1: row.text("parent1"), parent2: row.text("parent2"),
            hybrids: ColumnCoding.strings(row.text("hybrids")), closelyRelatedTo: ColumnCoding.strings(row.text("closely_related_to")),
            subspeciesVarieties: ColumnCoding.strings(row.text("subspecies_varieties")),
            synonyms: ColumnCoding.strings(row.text("synonyms")), externalLinks: ColumnCoding.values(row.text("external_links")))
    }

    package var columnValues: [String: StoredValue] {
        [
            "scientific_name": StoredValue(scientificName), "author": StoredValue(author), "is_hybrid": StoredValue(isHybrid),
            "conservation_status": StoredValue(conservationStatus), "subgenus": StoredValue(subgenus), "section": StoredValue(section),
            "subsection": StoredValue(subsection), "complex": StoredValue(complex), "parent1": StoredValue(parent1),
            "parent2": StoredValue(parent2), "hybrids": StoredValue(list: hybrids), "closely_related_to": StoredValue(list: closelyRelatedTo),
            "subspecies_varieties": StoredValue(list: subspeciesVarieties), "synonyms": StoredValue(list: synonyms),
            "external_links": StoredValue(list: externalLinks),
        ]
    }
}

extension Taxon {
    /// Nil for a row whose level is not one the server knows.
    package init?(row: some StoredRow) {
        guard let level = row.text("level").flatMap(TaxonLevel.init(rawValue:)) else { return nil }
        self.init(
            name: row.text("name") ?? "", level: level, parent: row.text("parent"), author: row.text("author"), notes: row.text("notes"),
            links: ColumnCoding.values(row.text("links")), speciesCount: row.int("species_count"))
    }

    package var columnValues: [String: StoredValue] {
        [
            "name": StoredValue(name), "level": StoredValue(level.rawValue), "parent": StoredValue(parent), "author": StoredValue(author),
            "notes": StoredValue(notes), "links": StoredValue(list: links),
        ]
    }
}

extension Source {
    package init(row: some StoredRow) {
        self.init(
            id: row.int("id") ?? 0, sourceType: row.text("source_type") ?? "", name: row.text("name") ?? "",
            description: row.text("description"), author: row.text("author"), year: row.int("year"), url: row.text("url"),
            isbn: row.text("isbn"), doi: row.text("doi"), notes: row.text("notes"), license: row.text("license"),
            licenseURL: row.text("license_url"), speciesCount: row.int("species_count"))
    }

    /// Every column but the id.
    package var columnValues: [String: StoredValue] {
        [
            "source_type": StoredValue(sourceType), "name": StoredValue(name), "description": StoredValue(description),
            "author": StoredValue(author), "year": StoredValue(year), "url": StoredValue(url), "isbn": StoredValue(isbn),
            "doi": StoredValue(doi), "notes": StoredValue(notes), "license": StoredValue(license), "license_url": StoredValue(licenseURL),
        ]
    }
}

extension SpeciesSource {
    package init(row: some StoredRow) {
        self.init(
            id: row.int("id") ?? 0, uuid: row.text("uuid").flatMap(UUID.init(uuidString:)) ?? UUID(),
            scientificName: row.text("scientific_name") ?? "", sourceId: row.int("source_id") ?? 0,
            localNames: ColumnCoding.strings(row.text("local_names")), range: row.text("range"),
            growthHabit: row.text("growth_habit"), leaves: row.text("leaves"), flowers: row.text("flowers"), fruits: row.text("fruits"),
            bark: row.text("bark"), twigs: row.text("twigs"), buds: row.text("buds"), hardinessHabitat: row.text("hardiness_habitat"),
            miscellaneous: row.text("miscellaneous"), url: row.text("url"), isPreferred: row.bool("is_preferred"),
            createdAt: ColumnCoding.date(row.text("created_at")), updatedAt: ColumnCoding.date(row.text("updated_at")))
        fieldTimes = FieldTimesJSON.times(row.text("field_times"))
    }

    /// The columns of `columnList`, in its order: every column but the row's number.
    package static let columnNames = [
        "uuid", "scientific_name", "source_id", "local_names", "range", "growth_habit", "leaves", "flowers", "fruits", "bark", "twigs",
        "buds", "hardiness_habitat", "miscellaneous", "url", "is_preferred", "created_at", "updated_at", "field_times",
    ]

    /// The values of `columnNames`, in order (a note's insert is a statement written once, with no dictionary).
    package var columnList: [StoredValue] {
        [
            StoredValue(uuid.wireString), StoredValue(scientificName), StoredValue(sourceId), StoredValue(list: localNames),
            StoredValue(range), StoredValue(growthHabit), StoredValue(leaves), StoredValue(flowers), StoredValue(fruits),
            StoredValue(bark), StoredValue(twigs), StoredValue(buds), StoredValue(hardinessHabitat), StoredValue(miscellaneous),
            StoredValue(url), StoredValue(isPreferred), StoredValue(createdAt), StoredValue(updatedAt),
            StoredValue(FieldTimesJSON.text(fieldTimes)),
        ]
    }

    /// Every column but the row's number.
    package var columnValues: [String: StoredValue] {
        Dictionary(uniqueKeysWithValues: zip(Self.columnNames, columnList))
    }
}

extension APIToken {
    /// A token from its row of `api_tokens`.
    package init(row: some StoredRow) {
        self.init(
            name: row.text("name") ?? "", abilities: (row.text("abilities") ?? "").split(separator: ",").compactMap { Ability(rawValue: String($0)) },
            createdAt: ColumnCoding.date(row.text("created_at")), lastUsedAt: row.text("last_used_at").flatMap(WireTime.parse))
    }
}

extension TokenRules {
    /// The columns of a new token's row.
    package static func columnValues(of token: APIToken, secret: String) -> [String: StoredValue] {
        [
            "name": StoredValue(token.name), "token_hash": StoredValue(hash(secret)),
            "abilities": StoredValue(token.abilities.map(\.rawValue).joined(separator: ",")), "created_at": StoredValue(token.createdAt),
        ]
    }
}
