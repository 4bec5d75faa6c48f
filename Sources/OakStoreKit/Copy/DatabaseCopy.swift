import Crypto
import Foundation
import OakModels

/// A table `oak migrate` copies: its columns (integers or text), in the order rows are compared.
package struct CopiedTable: Sendable {
    package struct Column: Sendable {
        package var name: String
        package var isInteger: Bool
    }

    package var name: String
    package var columns: [Column]
    /// SQL ordering the rows by their key, so both sides list them alike.
    package var order: String

    init(_ name: String, integers: Set<String> = [], _ columns: String, order: String) {
        self.name = name
        self.columns = columns.split(separator: " ").map { Column(name: String($0), isInteger: integers.contains(String($0))) }
        self.order = order
    }

    /// The columns as a SELECT list (quoted: `range` and `key` are words of SQL).
    package var selectList: String { columns.map { "\"\($0.name)\"" }.joined(separator: ", ") }

    /// Every table of the compendium, in the order rows are inserted (referenced tables first). The change
    /// log, the sync state and the push receipts are copied as they are, but for the database's identity
    /// (`withNewIdentity`).
    package static let all: [CopiedTable] = [
        CopiedTable(
            "sources", integers: ["id", "year"], "id source_type name description author year url isbn doi notes license license_url",
            order: "id"),
        CopiedTable("taxa", "name level parent author notes links", order: "level, name"),
        CopiedTable(
            "oak_entries", integers: ["is_hybrid"],
            "scientific_name author is_hybrid conservation_status subgenus section subsection complex parent1 parent2 hybrids closely_related_to subspecies_varieties synonyms external_links",
            order: "scientific_name"),
        CopiedTable(
            "species_sources", integers: ["id", "source_id", "is_preferred"],
            "id scientific_name source_id local_names range growth_habit leaves flowers fruits bark_twigs_buds hardiness_habitat miscellaneous url is_preferred bark twigs buds uuid created_at updated_at field_times",
            order: "id"),
        CopiedTable("api_tokens", "name token_hash abilities created_at last_used_at", order: "name"),
        CopiedTable("import_metadata", "key value", order: "key"),
        CopiedTable("change_log", integers: ["seq"], "seq entity entity_key op changed_at deleted_at", order: "seq"),
        CopiedTable("sync_state", "key value", order: "key"),
        CopiedTable("sync_receipts", "digest result created_at", order: "digest"),
    ]

    /// The rows a copy is written with: the source's, marked as a copy (`CopyIdentity`), which the server that
    /// opens it gives an identity of its own: a device's cursor and base versions from the source are refused
    /// there (410), and the device re-syncs and sends again what the copy lacks, instead of skipping changes
    /// whose numbers it saw.
    package static func markedAsCopy(_ rows: [String: [[StoredValue]]]) -> [String: [[StoredValue]]] {
        var rows = rows
        var state = (rows["sync_state"] ?? []).filter { $0.first != .text(CopyIdentity.markKey) }
        state.append([.text(CopyIdentity.markKey), .text("1")])
        rows["sync_state"] = state.sorted { (first, second) in
            if case .text(let a) = first[0], case .text(let b) = second[0] { return a < b }
            return false
        }
        return rows
    }

    /// A value as this column stores it: integers as integers (an integer column of an older file may hold
    /// its number as text), everything else as text. Throws for text that is no number in an integer column.
    package func normalized(_ value: StoredValue, column: Column) throws -> StoredValue {
        switch (value, column.isInteger) {
        case (.null, _), (.integer, true), (.text, false): return value
        case (.integer(let number), false): return .text(String(number))
        case (.text(let text), true):
            guard let number = Int64(text.trimmingCharacters(in: .whitespaces)) else {
                throw OakError.invalid("\(name).\(column.name)", "holds '\(text)', which is not a whole number")
            }
            return .integer(number)
        }
    }

    /// A digest of rows in order (SHA-256, hex): equal rows give equal digests on every backend.
    package static func checksum(of rows: [[StoredValue]]) -> String {
        var hasher = SHA256()
        for row in rows {
            for value in row {
                switch value {
                case .null: hasher.update(data: Data("n;".utf8))
                case .integer(let number): hasher.update(data: Data("i\(number);".utf8))
                case .text(let text): hasher.update(data: Data("t\(text.utf8.count):\(text);".utf8))
                }
            }
            hasher.update(data: Data("\n".utf8))
        }
        return hasher.finalize().hexString
    }
}

/// A database `oak migrate` reads from or writes into; each backend is one.
package protocol CopyEndpoint: Sendable {
    /// A table's rows in key order.
    func rows(of table: CopiedTable) async throws -> [[StoredValue]]
    /// The change log's head: the last sequence number given out.
    func changeLogHead() async throws -> Int64
    /// Whether the database holds anything beyond what a new one has (the three standard sources).
    func holdsData() async throws -> Bool
    /// In one transaction: empties every table, inserts `rows` (by table, in `CopiedTable.all` order), and
    /// sets the change log's head. `progress` is told how many rows are in.
    func replaceAll(with rows: [String: [[StoredValue]]], head: Int64, progress: @escaping @Sendable (Int) -> Void) async throws
}

/// SQL shared by the endpoints.
extension CopiedTable {
    /// Whether a database holds data: species, taxa, source rows, tokens, or sources beyond the standard three.
    package static let holdsDataQuery = """
        SELECT (SELECT COUNT(*) FROM oak_entries) + (SELECT COUNT(*) FROM taxa) + (SELECT COUNT(*) FROM species_sources)
            + (SELECT COUNT(*) FROM api_tokens) + (SELECT COUNT(*) FROM sources WHERE id > 3)
        """
}
