import Foundation
import Logging
import OakModels
import OakStore
import OakStorePostgres
import OakTestSupport
import PostgresNIO
import Testing

@Suite(
    "PostgreSQL connection leases", .timeLimit(.minutes(1)),
    .needsPostgres)
struct PostgresLeaseTests {
    private static let logger = Logger(label: "oak.tests", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test("a call that gets no connection within the lease timeout answers 503 at once; the call holding the connection still completes")
    func leaseTimeout() async throws {
        let url = try await temporaryPostgresDatabase()
        let store = try await PostgresStore(url: url, pool: PostgresPoolSettings(maxConnections: 1, connectionWait: .milliseconds(300)))
        let holder = PostgresClient(configuration: try PostgresURL(url).clientConfiguration)
        let (locked, lockTaken) = AsyncStream<Void>.makeStream()
        let (released, release) = AsyncStream<Void>.makeStream()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await holder.run() }
            // Another client holds the lock every write of the store takes first.
            group.addTask {
                try await holder.withConnection { connection in
                    try await connection.query("BEGIN", logger: Self.logger)
                    try await connection.query("SELECT seq FROM change_log_head FOR UPDATE", logger: Self.logger)
                    lockTaken.yield()
                    for await _ in released { break }
                    try await connection.query("COMMIT", logger: Self.logger)
                }
            }
            for await _ in locked { break }

            // A write takes the store's only connection and waits for that lock.
            let create = Task { try await store.createNote(NoteInput(scientificName: "alba")) }
            try await Self.waitForLockWaiter(holder)

            let started = ContinuousClock.now
            do {
                _ = try await store.listSpecies(filter: SpeciesFilter(), limit: 1, offset: 0)
                Issue.record("a read without a connection must fail")
            } catch let error as OakError {
                #expect(error.code == .serviceUnavailable)
                #expect(error.code.httpStatus == 503)
                #expect(error.message.contains("No database connection"))
            }
            #expect(ContinuousClock.now - started < .seconds(5))

            release.yield()
            let note = try await create.value
            #expect(try await store.note(id: note.id).scientificName == "alba")
            #expect(try await store.listSpecies(filter: SpeciesFilter(), limit: 1, offset: 0).pagination.total > 0)
            group.cancelAll()
        }
    }

    @Test(
        "a deadlock PostgreSQL breaks by aborting the store's write is run again by the store: the write succeeds, and the count of retries /metrics shows grows"
    )
    func deadlockIsRetried() async throws {
        let url = try await temporaryPostgresDatabase()
        let store = try await PostgresStore(url: url, pool: PostgresPoolSettings(maxConnections: 2))
        let note = try await store.createNote(NoteInput(scientificName: "alba", fields: NoteFieldsPatch(replacingWith: NoteFields(leaf: "first"))))
        let other = PostgresClient(configuration: try PostgresURL(url).clientConfiguration)
        let (rowLocked, rowTaken) = AsyncStream<Void>.makeStream()
        let (storeWaits, storeWaiting) = AsyncStream<Void>.makeStream()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await other.run() }
            // Another program holds the note's row, then (once the store's write waits for that row, holding the
            // lock every store write takes first) asks for that lock: a deadlock, and the store's write waited first,
            // so PostgreSQL aborts it (deadlock_detected).
            group.addTask {
                try await other.withConnection { connection in
                    try await connection.query("BEGIN", logger: Self.logger)
                    try await connection.query("SELECT 1 FROM species_sources WHERE uuid = \(note.id.wireString) FOR UPDATE", logger: Self.logger)
                    rowTaken.yield()
                    for await _ in storeWaits { break }
                    try await connection.query("SELECT seq FROM change_log_head FOR UPDATE", logger: Self.logger)
                    try await connection.query("COMMIT", logger: Self.logger)
                }
            }
            for await _ in rowLocked { break }
            let update = Task {
                try await store.updateNote(
                    id: note.id, with: NoteInput(scientificName: "alba", fields: NoteFieldsPatch(replacingWith: NoteFields(leaf: "the store's"))),
                    expectedVersion: nil)
            }
            try await Self.waitForLockWaiter(other)
            storeWaiting.yield()
            let updated = try await update.value
            #expect(updated.fields.leaf == "the store's")
            #expect(try await store.note(id: note.id).fields.leaf == "the store's")
            #expect(store.poolStatus.failures["database_retry"] == 1)
            group.cancelAll()
        }
    }

    @Test("database failures are told apart by PostgreSQL's error codes: each kind of outage, refusal, timeout and retry is a 503 naming it")
    func failureKinds() {
        #expect(PostgresFailure(code: .serverClosedConnection, sqlState: nil) == .unavailable)
        #expect(PostgresFailure(code: .connectionError, sqlState: nil) == .unavailable)
        #expect(PostgresFailure(code: .server, sqlState: "57P01") == .unavailable)
        #expect(PostgresFailure(code: .server, sqlState: "08006") == .unavailable)
        #expect(PostgresFailure(code: .server, sqlState: "57P03") == .refused)
        #expect(PostgresFailure(code: .server, sqlState: "53300") == .refused)
        #expect(PostgresFailure(code: .server, sqlState: "57014") == .timedOut)
        #expect(PostgresFailure(code: .server, sqlState: "40001") == .retryable)
        #expect(PostgresFailure(code: .server, sqlState: "40P01") == .retryable)
        #expect(PostgresFailure(code: .server, sqlState: "23505") == nil)
        #expect(PostgresFailure(code: .server, sqlState: "42P01") == nil)
        let error = PostgresFailure.timedOut.error("slow")
        #expect(error.code.httpStatus == 503 && error.details?["reason"] == .string("database_timeout"))
    }

    /// Waits until a session of the database waits for a lock.
    private static func waitForLockWaiter(_ client: PostgresClient) async throws {
        for _ in 0..<500 {
            let waiting = try await client.withConnection { connection in
                let rows = try await connection.query(
                    "SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'", logger: logger)
                var count = 0
                for try await (value) in rows.decode(Int.self) { count = value }
                return count
            }
            if waiting > 0 { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the write never waited for the lock")
    }
}
