import Foundation
import Logging
import NIOCore
import OakModels
import OakStore
import OakStoreKit
import PostgresNIO

/// One leased connection and the queries the store runs on it. SQL uses `$1`, `$2`, … for its values.
package struct PostgresSession: @unchecked Sendable {
    let connection: PostgresConnection
    let logger: Logger
    /// The statements sent and not yet answered (`send`).
    private let sent = SentStatements()
    /// What fails the session's waits when the connection closes, and runs its kept statements (looked up once a
    /// session, not once a statement).
    private let watch: ConnectionWatch

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
        watch = ConnectionWatch.of(connection)
    }

    /// Values as a statement's parameters.
    private static func bindings(_ values: [StoredValue]) -> PostgresBindings {
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .text(let text): binds.append(text)
            case .integer(let number): binds.append(number)
            case .null: binds.appendNull()
            }
        }
        return binds
    }

    /// Runs a statement and returns the number of rows it changed.
    @discardableResult
    package func execute(_ sql: String, _ values: [StoredValue] = []) async throws -> Int {
        try await result(sql, values).metadata.rows ?? 0
    }

    /// Sends a statement without waiting for its answer, for a statement whose answer nothing needs before the
    /// next one: the connection runs statements in the order they are sent, and PostgresNIO hands over the next
    /// as soon as the one before is answered, so the statements sent and the next one waited for cost one wait
    /// instead of one each. The next statement waited for fails with the first failure among them; in a
    /// transaction a failed statement aborts it, and the statements after it change nothing.
    func send(_ sql: String, _ values: [StoredValue] = []) {
        send(sql, Self.bindings(values))
    }

    /// Sends a statement (`send(_:_:)`) with its parameters bound as they are: lists as PostgreSQL arrays in its
    /// binary format, so that long texts (a push's receipts) go with nothing to escape into JSON and parse back.
    func send(_ sql: String, _ binds: PostgresBindings) {
        sent.futures.append(statement(PostgresQuery(unsafeSQL: sql, binds: binds)))
    }

    /// A statement's answer, sent after the statements sent before it, which must succeed first.
    private func result(_ sql: String, _ values: [StoredValue]) async throws -> PostgresQueryResult {
        try await result(sql, Self.bindings(values))
    }

    /// A statement's answer (`result(_:_:)`), its parameters bound as they are.
    private func result(_ sql: String, _ binds: PostgresBindings) async throws -> PostgresQueryResult {
        try await answerAfterSent(statement(PostgresQuery(unsafeSQL: sql, binds: binds)))
    }

    /// The answer to a statement handed to the connection after those sent before it (`send`), whose answers are
    /// awaited first, so that the first failure among them is the one thrown.
    private func answerAfterSent<Value: Sendable>(_ future: EventLoopFuture<Value>) async throws -> Value {
        let earlier = sent.futures
        sent.futures.removeAll()
        for statement in earlier { _ = try await answer(statement) }
        return try await answer(future)
    }

    /// Hands a statement to the connection.
    private func statement(_ query: PostgresQuery) -> EventLoopFuture<PostgresQueryResult> {
        connection.query(query, logger: logger)
    }

    /// A statement's answer, or `unavailable` when the connection closes first (`ConnectionWatch`).
    private func answer<Value: Sendable>(_ future: EventLoopFuture<Value>) async throws -> Value {
        try await watch.answer(future) {
            PostgresFailure.unavailable.error(PostgresFailure.unavailable.message)
        }
    }

    /// Runs a script of several statements without values, one statement at a time.
    func script(_ sql: String) async throws {
        for statement in Self.statements(of: sql) { try await execute(statement) }
    }

    /// The statements of a script, split at semicolons outside quotes, `$$` bodies and `--` comments.
    static func statements(of script: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var characters = Array(script)[...]
        var inQuote = false
        var inBody = false
        while let character = characters.popFirst() {
            if !inQuote, !inBody, character == "-", characters.first == "-" {
                while let skipped = characters.popFirst(), skipped != "\n" {}
                current.append("\n")
                continue
            }
            current.append(character)
            if !inBody, character == "'" { inQuote.toggle() }
            if !inQuote, character == "$", characters.first == "$" {
                current.append(characters.removeFirst())
                inBody.toggle()
            }
            if !inQuote, !inBody, character == ";" {
                statements.append(current)
                current = ""
            }
        }
        statements.append(current)
        return statements.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty && $0 != ";" }
    }

    /// Every row of a query.
    package func rows(_ sql: String, _ values: [StoredValue] = []) async throws -> [PostgresRandomAccessRow] {
        try await result(sql, values).rows.map { $0.makeRandomAccess() }
    }

    /// Every row of a statement the connection keeps prepared (`KeptStatement`), after the statements sent before it,
    /// which must succeed first.
    func rows<Statement: KeptStatement>(_ statement: Statement.Type, _ values: [StoredValue]) async throws -> [PostgresRandomAccessRow] {
        try await rows(statement, Self.bindings(values))
    }

    /// Every row of a kept statement (`rows(_:_:)`), its parameters bound as they are.
    func rows<Statement: KeptStatement>(_ statement: Statement.Type, _ binds: PostgresBindings) async throws -> [PostgresRandomAccessRow] {
        let (connection, logger, prepared) = (connection, logger, Prepared<Statement>(bindings: binds))
        let answered = connection.eventLoop.makePromise(of: [PostgresRandomAccessRow].self)
        // In a task of its own, so that `answer` fails the wait when the connection closes first; on the connection's
        // event loop, where the statement is handed over and its rows arrive, so that its steps, from handing the
        // statement over to its last row, wake no other thread. The statements sent before it are already on the
        // connection, so it runs after them.
        Task(executorPreference: watch.executor) {
            do {
                var rows: [PostgresRandomAccessRow] = []
                for try await row in try await connection.execute(prepared, logger: logger) { rows.append(row) }
                answered.succeed(rows)
            } catch {
                answered.fail(error)
            }
        }
        return try await answerAfterSent(answered.futureResult)
    }

    /// Every row of a kept statement that selects one `ROW(…)` a row (`packedRows(_:_:)`).
    func packedRows<Statement: KeptStatement>(_ statement: Statement.Type, _ binds: PostgresBindings) async throws -> [PackedColumns] {
        try await Self.packed(rows(statement, binds))
    }

    /// Every row of a query that selects one `ROW(…)` a row, read as the columns of that value (`PackedColumns`).
    func packedRows(_ sql: String, _ values: [StoredValue] = []) async throws -> [PackedColumns] {
        try await packedRows(sql, Self.bindings(values))
    }

    /// Every row of a query that selects one `ROW(…)` a row, with parameters bound as they are: lists as PostgreSQL
    /// arrays in its binary format, which it reads without parsing text.
    func packedRows(_ sql: String, _ binds: PostgresBindings) async throws -> [PackedColumns] {
        try Self.packed(await result(sql, binds).rows.map { $0.makeRandomAccess() })
    }

    private static func packed(_ rows: [PostgresRandomAccessRow]) throws -> [PackedColumns] {
        try rows.map { row in
            guard let columns = PackedColumns(row[0].bytes) else { throw OakError(.internalError, "a row is not one ROW(…) value") }
            return columns
        }
    }

    /// The first row of a query, if any.
    package func row(_ sql: String, _ values: [StoredValue] = []) async throws -> PostgresRandomAccessRow? {
        try await rows(sql, values).first
    }

    /// Calls `body` with the columns of each row of a query. The rows are all received first: a statement's rows
    /// cannot be streamed to a caller that may stop waiting when the connection closes (`ConnectionWatch`).
    func forEach(_ sql: String, _ values: [StoredValue] = [], _ body: (PostgresColumns) throws -> Void) async throws {
        for row in try await rows(sql, values) { try body(PostgresColumns(row)) }
    }

    /// The first column of the first row as text.
    package func text(_ sql: String, _ values: [StoredValue] = []) async throws -> String? {
        try await row(sql, values).flatMap { PostgresColumns($0).string(0) }
    }

    /// The first column of the first row as an integer.
    package func integer(_ sql: String, _ values: [StoredValue] = []) async throws -> Int64? {
        try await row(sql, values).flatMap { row in
            let columns = PostgresColumns(row)
            return columns.isNull(0) ? nil : columns.int(0)
        }
    }

    /// The first column of every row as text.
    package func texts(_ sql: String, _ values: [StoredValue] = []) async throws -> [String] {
        try await rows(sql, values).compactMap { PostgresColumns($0).string(0) }
    }

    /// Runs `body` in a transaction opened with `begin`: committed when it returns, rolled back when it throws.
    /// `begin` is sent with the body's first statement (`send`).
    func transaction<T>(_ begin: String, _ body: () async throws -> T) async throws -> T {
        send(begin)
        do {
            let value = try await body()
            try await execute("COMMIT")
            return value
        } catch {
            // A connection the database dropped has no transaction left to roll back.
            if !connection.isClosed { _ = try? await execute("ROLLBACK") }
            throw error
        }
    }

    /// Inserts a row from column values; `returning` names a column whose new value is returned.
    @discardableResult
    func insert(into table: String, _ values: [String: StoredValue], returning: String? = nil) async throws -> Int64? {
        let columns = values.keys.sorted()
        let placeholders = columns.indices.map { "$\($0 + 1)" }.joined(separator: ", ")
        let sql = "INSERT INTO \(table) (\(columns.map { "\"\($0)\"" }.joined(separator: ", "))) VALUES (\(placeholders))"
        let arguments = columns.map { values[$0] ?? .null }
        guard let returning else {
            try await execute(sql, arguments)
            return nil
        }
        return try await integer(sql + " RETURNING \(returning)", arguments)
    }

    /// Updates the rows matching `condition`, whose placeholders (`$1`…) are `arguments`; the column values
    /// are numbered after them.
    func update(_ table: String, _ values: [String: StoredValue], where condition: String, _ arguments: [StoredValue]) async throws {
        let columns = values.keys.sorted()
        let assignments = columns.enumerated().map { "\"\($1)\" = $\(arguments.count + $0 + 1)" }.joined(separator: ", ")
        try await execute("UPDATE \(table) SET \(assignments) WHERE \(condition)", arguments + columns.map { values[$0] ?? .null })
    }
}

/// The statements a session sent whose answers no one waited for yet, in the order sent. A session is used by one
/// task at a time.
private final class SentStatements: @unchecked Sendable {
    var futures: [EventLoopFuture<PostgresQueryResult>] = []
}

/// The columns of a PostgreSQL row as the shared JSON writers read them. Values arrive in the binary format:
/// text as its UTF-8 bytes, integers big-endian.
struct PostgresColumns: ColumnReader {
    let row: PostgresRandomAccessRow
    /// The row's column that is column 0 here: a row of two records side by side (a join) is read as two.
    let first: Int

    init(_ row: PostgresRandomAccessRow, from first: Int = 0) {
        self.row = row
        self.first = first
    }

    func isNull(_ index: Int32) -> Bool {
        row[first + Int(index)].bytes == nil
    }

    func int(_ index: Int32) -> Int64 {
        row[first + Int(index)].integer ?? 0
    }

    /// The columns of a `ROW(…)` cell (`PackedColumns`); nil for NULL.
    func packed(_ index: Int32) -> PackedColumns? {
        PackedColumns(row[first + Int(index)].bytes)
    }

    func withText<T>(_ index: Int32, _ body: (UnsafeBufferPointer<UInt8>?) throws -> T) rethrows -> T {
        guard let bytes = row[first + Int(index)].bytes else { return try body(nil) }
        return try bytes.withUnsafeReadableBytes { raw in
            try body(UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count))
        }
    }
}

extension PostgresCell {
    /// An integer cell of any width; nil for NULL.
    var integer: Int64? {
        guard var bytes else { return nil }
        switch bytes.readableBytes {
        case 8: return bytes.readInteger(as: Int64.self)
        case 4: return bytes.readInteger(as: Int32.self).map(Int64.init)
        case 2: return bytes.readInteger(as: Int16.self).map(Int64.init)
        default: return nil
        }
    }

    /// A text cell; nil for NULL.
    var text: String? {
        bytes.map { String(buffer: $0) }
    }
}

extension PostgresRandomAccessRow: StoredRow {
    package func text(_ column: String) -> String? {
        contains(column) ? self[column].text : nil
    }

    package func integer(_ column: String) -> Int64? {
        contains(column) ? self[column].integer : nil
    }
}
