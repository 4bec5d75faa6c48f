import Logging
import OakTestSupport
import PostgresNIO

@testable import OakStorePostgres

/// Runs `body` with a store session (`PostgresSession`) on a connection to a new temporary database of the tests'
/// PostgreSQL server, for tests of how the store reads what PostgreSQL sends.
func withPostgresSession(_ body: @escaping @Sendable (PostgresSession) async throws -> Void) async throws {
    let logger = Logger(label: "oak.tests", factory: { _ in SwiftLogNoOpLogHandler() })
    let client = PostgresClient(configuration: try PostgresURL(try await temporaryPostgresDatabase()).clientConfiguration)
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        try await client.withConnection { connection in try await body(PostgresSession(connection: connection, logger: logger)) }
        group.cancelAll()
    }
}
