import Foundation
import Logging
import NIOCore
import OakModels
import OakTestSupport
import PostgresNIO
import Testing

@testable import OakStorePostgres

/// A statement whose answer never comes must not hold its request (and a graceful shutdown waiting for that
/// request) forever: PostgresNIO does not answer a statement handed to a channel that closes at that moment.
@Suite(
    "PostgreSQL statements on a closing connection", .timeLimit(.minutes(1)),
    .needsPostgres)
struct PostgresConnectionWatchTests {
    private static let logger = Logger(label: "oak.tests", factory: { _ in SwiftLogNoOpLogHandler() })

    static func unavailable() -> any Error { PostgresFailure.unavailable.error(PostgresFailure.unavailable.message) }

    @Test("a statement still waiting for its answer when the database drops the connection fails as unavailable at once")
    func waitingStatementFailsOnClose() async throws {
        let url = try await temporaryPostgresDatabase()
        let client = PostgresClient(configuration: try PostgresURL(url).clientConfiguration)
        let killer = PostgresClient(configuration: try PostgresURL(url).clientConfiguration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            group.addTask { await killer.run() }
            try await client.withConnection { connection in
                let pid = try #require(try await connection.query("SELECT pg_backend_pid()", logger: Self.logger).collect().first?.decode(Int32.self))
                // An answer that never comes, as for a statement the channel never took.
                let never = connection.eventLoop.makePromise(of: Int.self)
                let waiting = Task { try await ConnectionWatch.of(connection).answer(never.futureResult, unavailable: Self.unavailable) }
                try await Task.sleep(for: .milliseconds(100))

                let started = ContinuousClock.now
                try await killer.query("SELECT pg_terminate_backend(\(unescaped: String(pid)))", logger: Self.logger)
                let error = await #expect(throws: OakError.self) { try await waiting.value }
                #expect(ContinuousClock.now - started < .seconds(5))
                #expect(error?.code == .serviceUnavailable)

                // A statement asked for on the closed connection fails without waiting.
                let late = connection.eventLoop.makePromise(of: Int.self)
                await #expect(throws: OakError.self) {
                    try await ConnectionWatch.of(connection).answer(late.futureResult, unavailable: Self.unavailable)
                }
                never.succeed(0)
                late.succeed(0)
            }
            group.cancelAll()
        }
    }

    @Test("a statement answered before the connection closes keeps its answer, and the close later fails nothing")
    func answeredStatementKeepsItsAnswer() async throws {
        let url = try await temporaryPostgresDatabase()
        let client = PostgresClient(configuration: try PostgresURL(url).clientConfiguration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            try await client.withConnection { connection in
                let session = PostgresSession(connection: connection, logger: Self.logger)
                #expect(try await session.integer("SELECT 41 + 1") == 42)
                #expect(try await session.texts("SELECT x::text FROM generate_series(1, 3) AS x") == ["1", "2", "3"])
                var seen: [Int64] = []
                try await session.forEach("SELECT x FROM generate_series(1, 4) AS x") { seen.append($0.int(0)) }
                #expect(seen == [1, 2, 3, 4])
            }
            group.cancelAll()
        }
    }
}
