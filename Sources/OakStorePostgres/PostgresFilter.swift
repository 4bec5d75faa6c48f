import OakModels
import OakStore
import OakStoreKit
import PostgresNIO

/// The WHERE clause of a list query, built from optional filters, with `$n` placeholders.
struct PostgresFilter: Sendable {
    private(set) var conditions: [String] = []
    private(set) var values: [StoredValue] = []

    /// Adds `condition`, whose `$` stands for the value's placeholder, when `value` is present.
    mutating func add(_ condition: String, _ value: StoredValue?) {
        guard let value, value != .null else { return }
        values.append(value)
        conditions.append(condition.replacingOccurrences(of: "$", with: "$\(values.count)"))
    }

    var whereClause: String { conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ") }

    /// One page of `table`'s rows matching the filter (the `columns` selected), with the total count; with
    /// no limit, every row, and the page's limit is their count.
    func page<Item>(
        _ session: PostgresSession, select columns: String = "*", from table: String, orderBy order: String, limit: Int?, offset: Int,
        _ item: (PostgresRandomAccessRow) -> Item?
    ) async throws -> Page<Item> {
        let total = Int(try await session.integer("SELECT COUNT(*) FROM \(table) \(whereClause)", values) ?? 0)
        let count = values.count
        let rows = try await session.rows(
            "SELECT \(columns) FROM \(table) \(whereClause) ORDER BY \(order) LIMIT $\(count + 1) OFFSET $\(count + 2)",
            values + [StoredValue(limit), StoredValue(offset)])
        return Page(data: rows.compactMap(item), pagination: Pagination(total: total, limit: limit ?? max(total, 1), offset: offset))
    }
}
