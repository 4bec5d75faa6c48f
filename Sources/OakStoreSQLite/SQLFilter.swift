import GRDB
import OakModels
import OakSQLite
import OakStore

/// The WHERE clause of a list query, built from optional filters.
struct SQLFilter: Sendable {
    private(set) var conditions: [String] = []
    private(set) var arguments = StatementArguments()

    /// Adds `condition` (with one `?`) when `value` is present.
    mutating func add(_ condition: String, _ value: (any DatabaseValueConvertible & Sendable)?) {
        guard let value else { return }
        conditions.append(condition)
        arguments += [value]
    }

    var whereClause: String { conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ") }

    /// One page of `table`'s rows matching the filter (the `columns` selected), with the total count; with
    /// no limit, every row, and the page's limit is their count.
    func page<Item>(
        _ db: Database, select columns: String = "*", from table: String, orderBy order: String, limit: Int?, offset: Int,
        _ item: (Row) -> Item?
    ) throws -> Page<Item> {
        let total = try Int.fetchOne(db, cachedSQL: "SELECT COUNT(*) FROM \(table) \(whereClause)", arguments: arguments) ?? 0
        let items = try db.fetchAll(
            cachedSQL: "SELECT \(columns) FROM \(table) \(whereClause) ORDER BY \(order) LIMIT ? OFFSET ?",
            arguments: arguments + [limit ?? -1, offset], item)
        return Page(data: items.compactMap { $0 }, pagination: Pagination(total: total, limit: limit ?? max(total, 1), offset: offset))
    }
}
