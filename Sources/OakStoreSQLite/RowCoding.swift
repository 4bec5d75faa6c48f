import Foundation
import GRDB
import OakModels
import OakSQLite
import OakStore
import OakStoreKit

extension Row: StoredRow {
    package func text(_ column: String) -> String? {
        self[column]
    }

    package func integer(_ column: String) -> Int64? {
        self[column]
    }
}

extension StoredValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .text(let text): text.databaseValue
        case .integer(let number): number.databaseValue
        case .null: .null
        }
    }
}

extension StatementArguments {
    /// Positional arguments from stored values. GRDB's initializer for a sequence of one concrete type reads
    /// each value through a key path made at run time (see BENCHMARKS.md, "Server round 2", item 20); its
    /// initializer for optional existentials does not.
    init(_ values: [StoredValue]) {
        self.init(values.map { $0.databaseValue as (any DatabaseValueConvertible)? })
    }
}

extension Database {
    /// Inserts a row from column values, through a prepared statement cached by the connection.
    package func insert(into table: String, _ values: [String: StoredValue]) throws {
        let columns = values.keys.sorted()
        try execute(cachedSQL: Self.insertSQL(into: table, columns), arguments: StatementArguments(columns.map { values[$0] ?? StoredValue.null }))
    }

    /// SQL inserting one row of the given columns, in their order, as `?` arguments.
    package static func insertSQL(into table: String, _ columns: [String]) -> String {
        "INSERT INTO \(table) (\(columns.map { "\"\($0)\"" }.joined(separator: ", "))) VALUES (\(databaseQuestionMarks(count: columns.count)))"
    }

    /// Updates the rows matching `condition` with column values.
    func update(
        _ table: String, _ values: [String: StoredValue], where condition: String,
        _ arguments: StatementArguments
    ) throws {
        let columns = values.keys.sorted()
        let sql = "UPDATE \(table) SET \(columns.map { "\"\($0)\" = ?" }.joined(separator: ", ")) WHERE \(condition)"
        try execute(cachedSQL: sql, arguments: StatementArguments(columns.map { values[$0] ?? StoredValue.null }) + arguments)
    }
}
