import GRDB
import GRDBSQLite
import OakStore
import OakStoreKit

/// The columns of the row a statement is positioned on, read in place (valid until the statement steps).
struct StatementColumns: ColumnReader {
    let statement: SQLiteStatement

    init(_ statement: Statement) {
        self.statement = statement.sqliteStatement
    }

    func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(statement, index) == SQLITE_NULL
    }

    func int(_ index: Int32) -> Int64 {
        sqlite3_column_int64(statement, index)
    }

    /// SQLite answers no text for NULL, so a NULL column costs no separate type check.
    func withText<T>(_ index: Int32, _ body: (UnsafeBufferPointer<UInt8>?) throws -> T) rethrows -> T {
        guard let text = sqlite3_column_text(statement, index) else { return try body(nil) }
        return try body(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, index))))
    }
}
