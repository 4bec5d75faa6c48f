import Foundation
import Logging
import NIOCore
import OakModels
import OakStore
import OakStoreKit
import PostgresNIO
import Synchronization

/// The PostgreSQL store, for several `oak serve` instances on one database. It serves the same API from the
/// same schema as the SQLite store (`PostgresSchema`), through a pool of PostgresNIO connections.
///
/// What each instance derives from the data (the response cache, species records, the search index, the
/// export) follows the shared change log's head, so a write through one instance is seen by the others:
/// the head is known without a read while change notifications arrive (`ChangeNotifications`, for a store
/// opened from a URL), and read from the database otherwise.
public final class PostgresStore: Sendable {
    let client: PostgresClient
    /// The task running the pool, when the store runs it.
    private let runner: Task<Void, Never>?
    /// The head as notifications keep it known, and the task listening for them (a store opened from a URL).
    let changeNotifications = ChangeNotifications()
    let listener: Task<Void, Never>?
    /// What changed, read by each write after its commit for the catch-up it makes due.
    let changesAfterWrites = ChangesAfterWrites()
    let logger: Logger
    let activity = PoolActivity()
    let searchIndex = PostgresSearchIndex()
    let exportCache = ExportCache<PostgresExport>()
    /// The notes pulls wrote, for the pulls after them.
    let pulledNotes = PulledNoteCache()
    /// The server's clock: note timestamps, push clamping. Tests inject a controlled one.
    let clock: @Sendable () -> Date
    /// The pool's size and waits.
    let pool: PostgresPoolSettings
    /// The pool's most connections, for metrics.
    var maxConnections: Int { pool.maxConnections }
    private let closed = Atomic<Bool>(false)
    /// The change log's head, read once for all the requests waiting for it.
    let headReads = SharedRead<Int64>()

    /// Connects to the database at `url` (`postgres://user:password@host:port/database?sslmode=…`), creates
    /// or migrates the schema, and adds the standard sources and (when `seedStarterData` and the database has
    /// no species yet) the starter dataset. The store runs its connection pool until it closes.
    public convenience init(
        url: String, seedStarterData: Bool = true, pool: PostgresPoolSettings = PostgresPoolSettings(),
        clock: @escaping @Sendable () -> Date = Date.init, logger: Logger = Logger(label: "oak.postgres")
    ) async throws {
        let target = try PostgresURL(url)
        let client = PostgresClient(configuration: pool.configure(target.clientConfiguration), backgroundLogger: logger)
        // Detached, as the client's own service: it ends when the store closes, not with a caller's service.
        let runner = Task.detached { await client.run() }
        do {
            try await self.init(
                client: client, runner: runner,
                listening: try target.connectionConfiguration(applicationName: ChangeNotifications.applicationName), pool: pool,
                seedStarterData: seedStarterData, clock: clock, logger: logger)
        } catch {
            runner.cancel()
            throw error
        }
    }

    /// A store on a connection pool its caller made (with `pool.configure`) and runs (`client.run()` in a task
    /// or service group of its own, for as long as the store is used); migrated and seeded as `init(url:)` does.
    /// It has no connection of its own to listen for change notifications on, so it reads the change log's
    /// head for every answer derived from the data.
    public convenience init(
        client: PostgresClient, pool: PostgresPoolSettings = PostgresPoolSettings(), seedStarterData: Bool = true,
        clock: @escaping @Sendable () -> Date = Date.init, logger: Logger = Logger(label: "oak.postgres")
    ) async throws {
        try await self.init(
            client: client, runner: nil, listening: nil, pool: pool, seedStarterData: seedStarterData, clock: clock, logger: logger)
    }

    /// `listening`: the connection to listen for change notifications on, if any.
    private init(
        client: PostgresClient, runner: Task<Void, Never>?, listening: PostgresConnection.Configuration?, pool: PostgresPoolSettings,
        seedStarterData: Bool, clock: @escaping @Sendable () -> Date, logger: Logger
    ) async throws {
        self.client = client
        self.runner = runner
        self.pool = pool
        self.clock = clock
        self.logger = logger
        listener = listening.map { [changeNotifications] configuration in
            Task.detached { await changeNotifications.run(configuration: configuration, logger: logger) }
        }
        do {
            try await migrate()
            try await write { session in
                try await Self.insertStandardSources(session)
                if seedStarterData { try await Self.seedIfEmpty(session) }
                if try await session.integer(CopyIdentity.markedQuery) ?? 0 > 0 {
                    try await session.execute(CopyIdentity.renewSQL, [.text(SyncCursor.newDatabaseID())])
                    try await session.execute(CopyIdentity.unmarkSQL)
                }
            }
        } catch {
            listener?.cancel()
            throw Self.describe(error)
        }
    }

    /// Opens the store at `url` as `init` does, after one connection attempt that fails with the reason when
    /// the database cannot be reached (the pool would retry instead). A database that does not exist yet is
    /// created, as a SQLite file would be.
    public static func connect(
        url: String, seedStarterData: Bool = true, pool: PostgresPoolSettings = PostgresPoolSettings(), logger: Logger = Logger(label: "oak.postgres")
    ) async throws -> PostgresStore {
        let target = try PostgresURL(url)
        do {
            try await target.probe(logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "3D000" {  // invalid_catalog_name
            try await createDatabaseIfMissing(url: url, logger: logger)
        } catch {
            throw describe(error)
        }
        return try await PostgresStore(url: url, seedStarterData: seedStarterData, pool: pool, logger: logger)
    }

    deinit {
        listener?.cancel()
        runner?.cancel()
    }

    /// Closes the store: later calls fail at once, the calls under way finish, and it stops listening for
    /// change notifications. The pool the store runs shuts down when the store is released (cancelling it
    /// under running calls could leave them waiting).
    public func close() {
        closed.store(true, ordering: .releasing)
        listener?.cancel()
    }

    /// The current time at the database's precision (milliseconds).
    var now: Date { WireTime.milliseconds(clock()) }

    // MARK: Transactions

    /// How a write takes the change log's head row lock, which orders every writer (see `PostgresSchema`) and
    /// which each logged change holds to its commit. Writers that lock rows lock the head before them, so that
    /// they queue on the head instead of deadlocking on one another's rows.
    enum HeadLock {
        /// First, in a transaction: for writes of several rows or statements.
        case first
        /// At the first logged change (the log's trigger takes it), in a transaction: for a write that only
        /// inserts, so its reads and checks run while other writers hold the head. The only row locks it takes
        /// before the head are its foreign keys' share locks on the species and source it names; a writer that
        /// deletes one of those at the same moment deadlocks with it, which PostgreSQL detects, and the retry
        /// below runs the loser again.
        case atFirstChange
        /// In the one statement that writes, which commits on its own (no transaction): its reads and checks run
        /// before it, and the statement takes the head before the row it changes, so the head is held only
        /// while PostgreSQL runs it, never across a round trip. The statement must find the row as it was
        /// read, or it throws `RowChanged` and the write is run again under `first`.
        case inOneStatement
    }

    /// Thrown by a write of `HeadLock.inOneStatement` whose statement found its row changed since it was read.
    struct RowChanged: Error {}

    /// Runs a write, taking the head lock as `headLock` says; constraint violations the checks missed become
    /// 409s. A write PostgreSQL aborts for a serialization failure or a deadlock changed nothing, and is run
    /// again, up to `PostgresFailure.retries` times, before it is answered 503. A write of one statement that
    /// lost its row to another writer runs again holding the head from the start (`HeadLock.first`): every
    /// writer of a row takes the head before it, so no one can write the row between its read and its
    /// statement, and a row written by many at once cannot starve one of them.
    func write<T: Sendable>(
        headLock: HeadLock = .first, _ updates: @escaping @Sendable (PostgresSession) async throws -> T
    ) async throws -> T {
        var (headLock, aborted) = (headLock, 0)
        while true {
            do {
                guard headLock != .inOneStatement else { return try await session(writing: true, transaction: nil, updates) }
                let lockingHeadFirst = headLock == .first
                return try await session(writing: true, transaction: "BEGIN") { session in
                    // Sent with the first statement of `updates`, which runs once the lock is held.
                    if lockingHeadFirst { session.send("SELECT seq FROM change_log_head FOR UPDATE") }
                    return try await updates(session)
                }
            } catch let error where PostgresFailure(answered: error) == .retryable {
                aborted += 1
                guard aborted <= PostgresFailure.retries else { throw error }
            } catch is RowChanged {
                // Under the head from the start only a writer outside this server (psql) can have changed the row.
                guard headLock == .inOneStatement else {
                    throw PostgresFailure.retryable.error("The row was changed by another program while it was written; try again")
                }
                headLock = .first
            }
        }
    }

    /// Runs reads in one snapshot (a repeatable-read, read-only transaction), for answers made of several
    /// queries that must agree: a sync page and the head it reports, the export, the search index's catch-up.
    func snapshot<T: Sendable>(_ reads: @escaping @Sendable (PostgresSession) async throws -> T) async throws -> T {
        try await session(writing: false, transaction: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", reads)
    }

    /// Runs reads on one connection without a transaction: each statement sees the data as committed when
    /// it starts.
    func read<T: Sendable>(_ reads: @escaping @Sendable (PostgresSession) async throws -> T) async throws -> T {
        try await session(writing: false, transaction: nil, reads)
    }

    /// Runs `body` on a pooled connection, in a transaction opened with `transaction` when given, counted as
    /// a read or a write, with database errors described as the API reports them.
    private func session<T: Sendable>(
        writing: Bool, transaction begin: String?, _ body: @escaping @Sendable (PostgresSession) async throws -> T
    ) async throws -> T {
        try checkOpen()
        activity.begin(write: writing)
        // Before the write: whether a catch-up follows the writes here closely enough for this one to read for it.
        let readsChanges = writing && changesAfterWrites.readsAfterWrite(startingAt: changeNotifications.highestHead)
        do {
            let (logger, changesAfterWrites) = (logger, changesAfterWrites)
            let (value, headLeft) = try await withLeasedConnection { connection -> (T, Int64?) in
                let session = PostgresSession(connection: connection, logger: logger)
                let value: T
                if let begin {
                    value = try await session.transaction(begin) { try await body(session) }
                } else {
                    value = try await body(session)
                }
                // Committed: what changed since the catch-up's position, read now on this connection, is what the
                // catch-up after this write needs. The write stands if the read fails; the catch-up reads for itself.
                guard readsChanges else { return (value, nil) }
                let changes = await changesAfterWrites.read { position in try? await PostgresStore.changes(session, after: position) }
                return (value, changes?.head)
            }
            ended(writing: writing, leaving: headLeft)
            return value
        } catch {
            ended(writing: writing, leaving: nil)
            let described = Self.describe(error)
            if let failure = PostgresFailure(answered: described) { activity.recordFailure(failure.rawValue) }
            throw described
        }
    }

    /// A session ended, after its commit or rollback: a write's makes anything derived from the data before it
    /// suspect; `head` is one read after its commit, when it was.
    private func ended(writing: Bool, leaving head: Int64?) {
        activity.end(write: writing)
        guard writing else { return }
        activity.bumpGeneration()
        changeNotifications.wrote(leaving: head)
    }

    /// Runs `body` on a pooled connection, or fails with 503 when none is leased within `pool.connectionWait`. Either
    /// the body runs or the timeout answers, never both: a connection that comes after the timeout goes back
    /// unused, and a body that started is never cancelled by it.
    private func withLeasedConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let lease = LeaseState()
        let (client, timeout, activity) = (client, pool.connectionWait, activity)
        let asked = ContinuousClock.now
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await client.withConnection { connection in
                    guard lease.settle(.leased) else { throw CancellationError() }
                    activity.recordWait(ContinuousClock.now - asked)
                    return try await body(connection)
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                guard lease.settle(.timedOut) else { return nil }
                activity.recordWait(timeout)
                throw PostgresFailure.unavailable.error(
                    "No database connection within \(timeout): PostgreSQL is busy or unreachable; try again shortly")
            }
            while let result = try await group.next() {
                if let value = result {
                    group.cancelAll()
                    return value
                }
            }
            throw CancellationError()
        }
    }

    /// A closed store's pool would wait for connections that never come: it fails at once.
    private func checkOpen() throws {
        if closed.load(ordering: .acquiring) { throw OakError(.serviceUnavailable, "The store is closed") }
    }

    /// An error as the API reports it: constraint violations are 409s; a database that is away, restarting,
    /// out of connections or past the statement timeout, and a transaction it aborted to be run again, are 503s
    /// (`PostgresFailure`, which `/metrics` counts by kind); others keep the server's message (PostgresNIO's own
    /// description of a server error hides it).
    static func describe(_ error: any Error) -> any Error {
        guard let error = error as? PSQLError else { return error }
        let message = error.serverInfo?[.message]
        let state = error.serverInfo?[.sqlState]
        if let state, state.hasPrefix("23") {
            return OakError(.conflict, "The change conflicts with existing data: \(message ?? "constraint failed")")
        }
        if let failure = PostgresFailure(code: error.code, sqlState: state) {
            return failure.error(failure.message + (message.map { " (PostgreSQL: \($0))" } ?? ""))
        }
        let detail = message.map { "PostgreSQL: \($0)" } ?? "PostgreSQL: \(error.underlying.map { "\($0)" } ?? "\(error.code)")"
        return OakError(.internalError, detail)
    }

    // MARK: Migrations

    private func migrate() async throws {
        try await client.withConnection { connection in
            let session = PostgresSession(connection: connection, logger: logger)
            try await session.transaction("BEGIN") {
                try await session.execute("SELECT pg_advisory_xact_lock($1)", [.integer(PostgresSchema.migrationLock)])
                try await session.execute("CREATE TABLE IF NOT EXISTS oak_migrations (name text PRIMARY KEY, applied_at text NOT NULL)")
                let applied = Set(try await session.rows("SELECT name FROM oak_migrations").compactMap { $0.text("name") })
                for migration in PostgresSchema.migrations where !applied.contains(migration.name) {
                    try await session.script(migration.sql)
                    try await session.execute(
                        "INSERT INTO oak_migrations(name, applied_at) VALUES ($1, \(PostgresSchema.now))", [.text(migration.name)])
                }
            }
        }
    }

    // MARK: Starter data

    /// Inserts whichever of the three standard sources is missing (by id), leaving existing ones alone.
    static func insertStandardSources(_ session: PostgresSession) async throws {
        for source in StarterDataset.standardSources where try await !sourceExists(session, source.id) {
            var values = source.columnValues
            values["id"] = StoredValue(source.id)
            try await session.insert(into: "sources", values)
        }
        // Ids given explicitly do not move the identity; new sources are numbered after the largest.
        try await session.execute("SELECT setval(pg_get_serial_sequence('sources', 'id'), GREATEST((SELECT MAX(id) FROM sources), 1))")
    }

    /// Seeds taxa and species into a database that has no species yet, once.
    static func seedIfEmpty(_ session: PostgresSession) async throws {
        let seeded = try await session.text("SELECT value FROM import_metadata WHERE key = 'starter_dataset'")
        let speciesCount = try await session.integer("SELECT COUNT(*) FROM oak_entries") ?? 0
        guard seeded == nil, speciesCount == 0 else { return }
        let document = try StarterDataset.load()
        for taxon in document.taxa { try await session.insert(into: "taxa", taxon.columnValues) }
        for species in document.species { try await session.insert(into: "oak_entries", species.columnValues) }
        try await session.execute(
            "INSERT INTO import_metadata(key, value) VALUES ('starter_dataset', $1)", [.text(WireTime.format(Date()))])
    }
}

/// Whether a call got its connection or gave up waiting, whichever came first.
private final class LeaseState: Sendable {
    enum Outcome: Int { case waiting, leased, timedOut }

    private let outcome = Atomic<Int>(Outcome.waiting.rawValue)

    /// Records `final` if nothing was recorded yet; false when the other outcome came first.
    func settle(_ final: Outcome) -> Bool {
        outcome.compareExchange(expected: Outcome.waiting.rawValue, desired: final.rawValue, ordering: .acquiringAndReleasing).exchanged
    }
}
