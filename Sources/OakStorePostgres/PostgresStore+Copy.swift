import Foundation
import OakModels
import OakStore
import OakStoreKit

extension PostgresStore: CopyEndpoint {
    package func rows(of table: CopiedTable) async throws -> [[StoredValue]] {
        try await snapshot { session in
            try await session.rows("SELECT \(table.selectList) FROM \(table.name) ORDER BY \(table.order)").map { row in
                table.columns.indices.map { index in
                    let cell = row[index]
                    return cell.bytes == nil ? .null : table.columns[index].isInteger ? .integer(cell.integer ?? 0) : .text(cell.text ?? "")
                }
            }
        }
    }

    package func changeLogHead() async throws -> Int64 {
        try await read { session in try await Self.changeLogHead(session) }
    }

    package func holdsData() async throws -> Bool {
        try await read { session in try await session.integer(CopiedTable.holdsDataQuery) ?? 0 } > 0
    }

    package func replaceAll(with rows: [String: [[StoredValue]]], head: Int64, progress: @escaping @Sendable (Int) -> Void) async throws {
        try await write { session in
            for table in CopiedTable.all.reversed() { try await session.execute("DELETE FROM \(table.name)") }
            var done = 0
            for table in CopiedTable.all {
                // Inserting the data logged it again: the change log and sync state are the source's own.
                try await session.execute("DELETE FROM \(table.name)")
                let all = rows[table.name] ?? []
                // Many rows a statement (PostgreSQL takes up to 65,535 values in one).
                let perStatement = max(1, 10_000 / table.columns.count)
                for start in stride(from: 0, to: all.count, by: perStatement) {
                    let batch = all[start..<min(start + perStatement, all.count)]
                    let width = table.columns.count
                    let tuples = batch.indices.map { row in
                        "(" + (0..<width).map { "$\((row - start) * width + $0 + 1)" }.joined(separator: ", ") + ")"
                    }
                    try await session.execute(
                        "INSERT INTO \(table.name) (\(table.selectList)) VALUES \(tuples.joined(separator: ", "))", Array(batch.joined()))
                    done += batch.count
                    progress(done)
                }
            }
            try await session.execute("UPDATE change_log_head SET seq = $1", [.integer(head)])
            // Ids were given explicitly: new rows are numbered after the largest.
            for table in ["sources", "species_sources"] {
                try await session.execute(
                    "SELECT setval(pg_get_serial_sequence('\(table)', 'id'), GREATEST((SELECT MAX(id) FROM \(table)), 1))")
            }
        }
        // Outside the copy's transaction, as VACUUM must be: the statistics of the new rows, which the planner would
        // otherwise lack until autovacuum came by, so plans would change under the server minutes after a migration
        // (without them a sync page's change-log rows are read through the wrong indexes); and the dead versions the
        // copy left, above all of the change log's head row, which every logged row updated and which is read for
        // every answer a server could give from memory (see BENCHMARKS.md, "Server round 2", item 21).
        _ = try await read { session in try await session.execute("VACUUM (ANALYZE)") }
    }
}
