import Foundation
import GRDB
import OakModels
import OakStore
import OakStoreKit

extension SQLiteStore: CopyEndpoint {
    package func rows(of table: CopiedTable) async throws -> [[StoredValue]] {
        try await longRead { db in
            try Row.fetchAll(db, sql: "SELECT \(table.selectList) FROM \(table.name) ORDER BY \(table.order)").map { row in
                try zip(table.columns, row.databaseValues).map { column, value in
                    let stored: StoredValue =
                        switch value.storage {
                        case .null: .null
                        case .int64(let number): .integer(number)
                        case .double(let number): number.rounded() == number ? .integer(Int64(number)) : .text(String(number))
                        case .string(let text): .text(text)
                        case .blob(let data): .text(String(decoding: data, as: UTF8.self))
                        }
                    return try table.normalized(stored, column: column)
                }
            }
        }
    }

    package func changeLogHead() async throws -> Int64 {
        try read { db in try Self.changeLogVersion(db) }
    }

    package func holdsData() async throws -> Bool {
        try read { db in try Int.fetchOne(db, sql: CopiedTable.holdsDataQuery) ?? 0 } > 0
    }

    package func replaceAll(with rows: [String: [[StoredValue]]], head: Int64, progress: @escaping @Sendable (Int) -> Void) async throws {
        try await write { db in
            for table in CopiedTable.all.reversed() { try db.execute(sql: "DELETE FROM \(table.name)") }
            var done = 0
            for table in CopiedTable.all {
                // Inserting the data logged it again: the change log and sync state are the source's own.
                try db.execute(sql: "DELETE FROM \(table.name)")
                let placeholders = databaseQuestionMarks(count: table.columns.count)
                let statement = try db.makeStatement(sql: "INSERT INTO \(table.name) (\(table.selectList)) VALUES (\(placeholders))")
                for row in rows[table.name] ?? [] {
                    try statement.execute(arguments: StatementArguments(row))
                    done += 1
                    if done % 500 == 0 { progress(done) }
                }
            }
            // The source's log names no rows: its notes' upserts are found by row here (v13).
            try db.execute(sql: "UPDATE change_log AS c SET note_row = \(Schema.noteRowOfEntry)")
            try Schema.keepChangeLogSequence(db, atLeast: head)
            progress(done)
        }
    }
}
