import Foundation
import GRDB
import OakModels

/// Conversions between the database's text columns and the models.
enum ColumnCoding {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    /// A JSON-array text column as strings; tolerant of NULL, empty and legacy comma-separated text.
    static func strings(_ text: String?) -> [String] {
        // Most list columns are empty: skip the JSON decoder for them.
        guard let text, text != "[]", !text.trimmingCharacters(in: .whitespaces).isEmpty else { return [] }
        if let data = text.data(using: .utf8), let list = try? JSONDecoder().decode([String].self, from: data) {
            return list
        }
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A JSON-array text column of free-form values.
    static func values(_ text: String?) -> [JSONValue] {
        guard let text, text != "[]", let data = text.data(using: .utf8),
            let list = try? JSONDecoder().decode([JSONValue].self, from: data)
        else { return [] }
        return list
    }

    /// JSON text for an array column.
    static func json<T: Encodable>(_ value: [T]) -> String {
        (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "[]"
    }

    /// A stored timestamp; rows written by older tools may lack one.
    static func date(_ text: String?) -> Date {
        text.flatMap(WireTime.parse) ?? Date(timeIntervalSince1970: 0)
    }
}

extension Species {
    init(row: Row) {
        self.init(
            scientificName: row["scientific_name"], author: row["author"], isHybrid: row["is_hybrid"] ?? false,
            conservationStatus: row["conservation_status"], subgenus: row["subgenus"], section: row["section"],
            subsection: row["subsection"], complex: row["complex"], parent1: row["parent1"], parent2: row["parent2"],
            hybrids: ColumnCoding.strings(row["hybrids"]), closelyRelatedTo: ColumnCoding.strings(row["closely_related_to"]),
            subspeciesVarieties: ColumnCoding.strings(row["subspecies_varieties"]),
            synonyms: ColumnCoding.strings(row["synonyms"]), externalLinks: ColumnCoding.values(row["external_links"]))
    }

    var columnValues: [String: (any DatabaseValueConvertible)?] {
        [
            "scientific_name": scientificName, "author": author, "is_hybrid": isHybrid,
            "conservation_status": conservationStatus, "subgenus": subgenus, "section": section,
            "subsection": subsection, "complex": complex, "parent1": parent1, "parent2": parent2,
            "hybrids": ColumnCoding.json(hybrids), "closely_related_to": ColumnCoding.json(closelyRelatedTo),
            "subspecies_varieties": ColumnCoding.json(subspeciesVarieties), "synonyms": ColumnCoding.json(synonyms),
            "external_links": ColumnCoding.json(externalLinks),
        ]
    }
}

extension Taxon {
    init?(row: Row) {
        guard let level = TaxonLevel(rawValue: row["level"]) else { return nil }
        self.init(
            name: row["name"], level: level, parent: row["parent"], author: row["author"], notes: row["notes"],
            links: ColumnCoding.values(row["links"]))
    }

    var columnValues: [String: (any DatabaseValueConvertible)?] {
        [
            "name": name, "level": level.rawValue, "parent": parent, "author": author, "notes": notes,
            "links": ColumnCoding.json(links),
        ]
    }
}

extension Source {
    init(row: Row) {
        self.init(
            id: row["id"], sourceType: row["source_type"] ?? "", name: row["name"] ?? "", description: row["description"],
            author: row["author"], year: row["year"], url: row["url"], isbn: row["isbn"], doi: row["doi"],
            notes: row["notes"], license: row["license"], licenseURL: row["license_url"])
    }

    var columnValues: [String: (any DatabaseValueConvertible)?] {
        [
            "source_type": sourceType, "name": name, "description": description, "author": author, "year": year,
            "url": url, "isbn": isbn, "doi": doi, "notes": notes, "license": license, "license_url": licenseURL,
        ]
    }
}

extension SpeciesSource {
    init(row: Row) {
        let uuidText: String? = row["uuid"]
        self.init(
            id: row["id"], uuid: uuidText.flatMap(UUID.init(uuidString:)) ?? UUID(),
            scientificName: row["scientific_name"], sourceId: row["source_id"],
            localNames: ColumnCoding.strings(row["local_names"]), range: row["range"],
            growthHabit: row["growth_habit"], leaves: row["leaves"], flowers: row["flowers"], fruits: row["fruits"],
            bark: row["bark"], twigs: row["twigs"], buds: row["buds"], hardinessHabitat: row["hardiness_habitat"],
            miscellaneous: row["miscellaneous"], url: row["url"], isPreferred: row["is_preferred"] ?? false,
            createdAt: ColumnCoding.date(row["created_at"]), updatedAt: ColumnCoding.date(row["updated_at"]))
    }

    var columnValues: [String: (any DatabaseValueConvertible)?] {
        [
            "uuid": uuid.uuidString.lowercased(), "scientific_name": scientificName, "source_id": sourceId,
            "local_names": ColumnCoding.json(localNames), "range": range, "growth_habit": growthHabit,
            "leaves": leaves, "flowers": flowers, "fruits": fruits, "bark": bark, "twigs": twigs, "buds": buds,
            "hardiness_habitat": hardinessHabitat, "miscellaneous": miscellaneous, "url": url,
            "is_preferred": isPreferred, "created_at": WireTime.formatPrecise(createdAt),
            "updated_at": WireTime.formatPrecise(updatedAt),
        ]
    }
}

extension Database {
    /// Inserts a row from column values, through a prepared statement cached by the connection.
    func insert(into table: String, _ values: [String: (any DatabaseValueConvertible)?]) throws {
        let columns = values.keys.sorted()
        let sql = "INSERT INTO \(table) (\(columns.map { "\"\($0)\"" }.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
        try execute(cachedSQL: sql, arguments: StatementArguments(columns.map { values[$0] ?? nil }))
    }

    /// Updates the rows matching `condition` with column values.
    func update(
        _ table: String, _ values: [String: (any DatabaseValueConvertible)?], where condition: String,
        _ arguments: StatementArguments
    ) throws {
        let columns = values.keys.sorted()
        let sql = "UPDATE \(table) SET \(columns.map { "\"\($0)\" = ?" }.joined(separator: ", ")) WHERE \(condition)"
        try execute(cachedSQL: sql, arguments: StatementArguments(columns.map { values[$0] ?? nil }) + arguments)
    }
}

// Hot queries run from statements prepared once per connection (`cachedSQL:`); the SQL text is the key.
extension Row {
    static func fetchOne(_ db: Database, cachedSQL sql: String, arguments: StatementArguments = []) throws -> Row? {
        try fetchOne(db.cachedStatement(sql: sql), arguments: arguments)
    }

    static func fetchAll(_ db: Database, cachedSQL sql: String, arguments: StatementArguments = []) throws -> [Row] {
        try fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    static func fetchOne(_ db: Database, cachedSQL sql: String, arguments: StatementArguments = []) throws -> Self? {
        try fetchOne(db.cachedStatement(sql: sql), arguments: arguments)
    }

    static func fetchAll(_ db: Database, cachedSQL sql: String, arguments: StatementArguments = []) throws -> [Self] {
        try fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
    }
}

extension Database {
    func execute(cachedSQL sql: String, arguments: StatementArguments = []) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }
}
