import Foundation
import GRDB
import NIOCore
import OakClient
import OakModels
import OakStore
import OakStoreKit
import OakStoreSQLite

@testable import OakSync

/// The simulation's time: the server's clock. A device reads it with its own skew.
final class SimulatedClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    /// When every run starts.
    static let start = Date(timeIntervalSince1970: 1_780_000_000)

    init() {
        current = Self.start
    }

    /// Back to `start`, for the next run.
    func reset() {
        lock.withLock { current = Self.start }
    }

    var now: Date { lock.withLock { current } }

    func advance(milliseconds: Int) {
        lock.withLock { current = current.addingTimeInterval(Double(milliseconds) / 1000) }
    }
}

/// A request a device sent that the scheduler has not decided on yet.
struct InFlightRequest {
    let device: Int
    let request: TransportRequest
    let answer: CheckedContinuation<Result<TransportResponse, any Error>, Never>
}

/// The network lost a request or its response (the device sees a failure; the server may have applied it).
struct SimulatedNetworkFailure: Error {}

/// The network between the devices and the server. Nothing moves by itself: every request waits here until
/// the scheduler decides its fate, so the seed alone decides every interleaving. The scheduler waits for a
/// device to settle (its sync waits on the network, or ended) before it chooses the next step.
final class SimulatedNetwork: @unchecked Sendable {
    private let lock = NSLock()
    private var inFlight: [InFlightRequest] = []
    /// Devices whose sync runs.
    private var syncing: Set<Int> = []
    /// The scheduler, waiting for a device to settle.
    private var settling: [Int: CheckedContinuation<Void, Never>] = [:]

    /// Holds a device's request until the scheduler answers it.
    func send(device: Int, _ request: TransportRequest) async -> Result<TransportResponse, any Error> {
        await withCheckedContinuation { answer in
            let waiter = lock.withLock {
                inFlight.append(InFlightRequest(device: device, request: request, answer: answer))
                return settling.removeValue(forKey: device)
            }
            waiter?.resume()
        }
    }

    func syncStarted(_ device: Int) {
        _ = lock.withLock { syncing.insert(device) }
    }

    func syncEnded(_ device: Int) {
        let waiter = lock.withLock {
            syncing.remove(device)
            return settling.removeValue(forKey: device)
        }
        waiter?.resume()
    }

    func isSyncing(_ device: Int) -> Bool {
        lock.withLock { syncing.contains(device) }
    }

    /// Returns once the device's sync waits on the network or has ended.
    func settle(_ device: Int) async {
        await withCheckedContinuation { continuation in
            let ready = lock.withLock {
                if !syncing.contains(device) || inFlight.contains(where: { $0.device == device }) { return true }
                settling[device] = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// The requests waiting, in the order they were sent.
    var waiting: [InFlightRequest] { lock.withLock { inFlight } }

    /// Takes the request at `index` of `waiting` off the network.
    func take(_ index: Int) -> InFlightRequest {
        lock.withLock { inFlight.remove(at: index) }
    }
}

/// A device's transport: its requests go onto the simulated network.
struct SimulatedTransport: HTTPTransport {
    let device: Int
    let network: SimulatedNetwork

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await network.send(device: device, request).get()
    }
}

/// Never waits: a retry follows its failure at once (the scheduler decides when anything happens).
struct NoSleep: Sleeper {
    func sleep(for duration: Duration) async throws {}
}

/// Devices' stores, in memory, kept open from one run to the next and emptied in between: a phone's store opens
/// once and lives for days, so a run should spend its time syncing, not on what a store pays once (migrating,
/// reading the schema, compiling the statements it keeps), which was a fifth of a run's time when every run opened
/// three (BENCHMARKS.md, "The sync simulator's cost"). In memory rather than on files: the simulator tests the sync
/// rule, not the disk, and a store on one connection spends no time on a reader pool, the write-ahead log's file
/// locks or a sync per commit (its reads are `unsafeRead`s, which keep their compiled statements). An emptied store
/// holds what a new one holds (the tables' rows go, rowids start again at 1), so a run sees the same whatever store
/// it gets; a failure's replay (`--seed`) runs on new stores.
final class DeviceStores: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [LocalStore] = []

    /// An empty store: one a finished run gave back, or a new one.
    func take() throws -> LocalStore {
        if let store = lock.withLock({ idle.popLast() }) { return store }
        return try LocalStore.inMemory()
    }

    /// Empties the stores of a finished run and keeps them for the next.
    func giveBack(_ stores: [LocalStore]) async throws {
        for store in stores {
            // Through statements the connection keeps: compiling them anew for every run was a visible cost.
            try await store.writer.write { db in
                let tables = try String.fetchAll(
                    db,
                    cachedSQL: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'")
                for table in tables { try db.cachedStatement(sql: "DELETE FROM \(table.quotedDatabaseIdentifier)").execute() }
            }
        }
        lock.withLock { idle += stores }
    }
}

/// What the servers' template file holds, table by table (`sqlite_sequence` included; the migrations' own table
/// never changes), to put a used server back to it.
struct ServerTemplate: Sendable {
    struct Table: Equatable, Sendable {
        let name: String
        let columns: [String]
        let rows: [[DatabaseValue]]

        func empty(_ db: Database) throws {
            try db.cachedStatement(sql: "DELETE FROM \(name.quotedDatabaseIdentifier)").execute()
        }

        func insert(_ db: Database) throws {
            let sql =
                "INSERT INTO \(name.quotedDatabaseIdentifier) (\(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")))"
                + " VALUES (\(databaseQuestionMarks(count: columns.count)))"
            let statement = try db.cachedStatement(sql: sql)
            for row in rows { try statement.execute(arguments: StatementArguments(row)) }
        }
    }

    /// The tables the store's triggers write when other tables' rows come and go: filled last, once the rest are in.
    static let triggerWritten: Set<String> = ["change_log", "sync_state", "sqlite_sequence"]

    let path: String
    /// Each table after those its foreign keys name, so that rows can be emptied (in reverse) and written again
    /// (in order) with the keys checked as always: deferring them (`PRAGMA defer_foreign_keys`) would expire every
    /// statement the server's connection keeps, and each run would compile them all again.
    let tables: [Table]

    init(path: String) throws {
        self.path = path
        let database = try DatabaseQueue(path: path)
        defer { try? database.close() }
        tables = try database.read { db in
            let names = try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND (name = 'sqlite_sequence' OR name NOT LIKE 'sqlite_%') AND name != 'grdb_migrations' ORDER BY name"
            )
            var ordered: [String] = []
            func place(_ name: String) throws {
                guard !ordered.contains(name) else { return }
                for key in try db.foreignKeys(on: name) where key.destinationTable != name { try place(key.destinationTable) }
                ordered.append(name)
            }
            for name in names { try place(name) }
            return try ordered.map { name in
                let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(name.quotedDatabaseIdentifier) ORDER BY rowid")
                return Table(name: name, columns: try db.columns(in: name).map(\.name), rows: rows.map { row in row.databaseValues.map { $0 } })
            }
        }
    }

    /// Puts the database back to what the template holds, in one transaction of statements the connection keeps:
    /// every table emptied, the template's rows written again, and then those the triggers wrote meanwhile replaced
    /// by the template's own.
    func restore(_ db: Database) throws {
        for table in tables.reversed() { try table.empty(db) }
        for table in tables where !Self.triggerWritten.contains(table.name) { try table.insert(db) }
        for table in tables where Self.triggerWritten.contains(table.name) {
            try table.empty(db)
            try table.insert(db)
        }
    }
}

/// Servers kept open from one run to the next and put back to the template in between, as `DeviceStores` keeps
/// devices: opening a server's store (its connections, each reading the schema and compiling every statement it
/// uses) was the largest cost of a run left once the devices' stores were kept. A server put back holds exactly
/// what a new copy of the template holds (a test compares every table); its restores mid-run are still the
/// operator's (close, copy the backup over the file, open again). A failed run's server is dropped.
final class SimulatedServers: @unchecked Sendable {
    private let lock = NSLock()
    private let template: ServerTemplate
    private let directory: URL
    private var idle: [SimulatedServer] = []
    private var opened = 0

    init(template: ServerTemplate, directory: URL) {
        self.template = template
        self.directory = directory
    }

    /// A server holding what the template holds, its clock at the start: one a finished run gave back, or a new one.
    func take() throws -> SimulatedServer {
        let (server, number) = lock.withLock { () -> (SimulatedServer?, Int) in
            if let server = idle.popLast() { return (server, 0) }
            opened += 1
            return (nil, opened)
        }
        if let server { return server }
        return try SimulatedServer(template: template.path, directory: directory.appendingPathComponent("server-\(number)"))
    }

    /// Puts a finished run's server back to the template and keeps it for the next.
    func giveBack(_ server: SimulatedServer) async throws {
        try await server.reset(to: template)
        lock.withLock { idle.append(server) }
    }
}

/// The server: a real SQLite store on a file of its own, spoken to as the sync routes speak to it. It can be
/// backed up and restored from that backup, as an operator does (`cp backup oak.db`).
final class SimulatedServer: @unchecked Sendable {
    private(set) var store: SQLiteStore
    let path: String
    let clock = SimulatedClock()
    private let backups: String
    private var backup: String?

    /// A server on a copy of `template`, in `directory` (made here).
    init(template: String, directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("server.db").path
        backups = directory.appendingPathComponent("backups").path
        try FileManager.default.copyItem(atPath: template, toPath: path)
        let clock = clock
        store = try SQLiteStore(path: path, seedStarterData: false, clock: { clock.now })
    }

    var hasBackup: Bool { backup != nil }

    func takeBackup() async throws {
        let info = try await store.backup(into: backups, keep: 1)
        backup = URL(fileURLWithPath: backups).appendingPathComponent(info.filename).path
    }

    /// Stops the store, puts the backup in place of its file and starts again on it.
    func restore() throws {
        guard let backup else { return }
        try store.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try FileManager.default.copyItem(atPath: backup, toPath: path)
        let clock = clock
        store = try SQLiteStore(path: path, seedStarterData: false, clock: { clock.now })
    }

    /// Back to what `template` holds, without a backup, its clock at the start (through the store's own writes, so
    /// nothing it derived from the data before outlives them).
    func reset(to template: ServerTemplate) async throws {
        try await store.write { db in try template.restore(db) }
        if let backup { try? FileManager.default.removeItem(atPath: backup) }
        backup = nil
        clock.reset()
    }

    func close() throws {
        try store.close()
    }

    /// Answers a request as the sync routes do: the store's answer, or its error in the envelope.
    func handle(_ request: TransportRequest) async -> TransportResponse {
        do {
            let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
            let query = Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
            switch (request.method, components?.path ?? "") {
            case ("GET", "/api/v1/sync/pull"):
                let page = try await store.pull(
                    cursor: query["since"], limit: Int(query["limit"] ?? "") ?? 1000, entities: try SyncEntity.parseList(query["entities"]))
                return TransportResponse(status: 200, body: Data(page.body.readableBytesView))
            case ("POST", "/api/v1/sync/push"):
                let push = try JSONDecoder().decode(PushRequest.self, from: request.body ?? Data())
                let body = try await store.push(push.changes, cursor: push.cursor)
                return TransportResponse(status: 200, body: Data(body.readableBytesView))
            default:
                throw OakError(.notFound, "The simulation serves the sync routes only")
            }
        } catch let error as OakError {
            return TransportResponse(status: error.code.httpStatus, body: (try? WireJSON.encoder.encode(ErrorEnvelope(error: error))) ?? Data())
        } catch {
            let failure = OakError(.internalError, "\(error)")
            return TransportResponse(status: 500, body: (try? WireJSON.encoder.encode(ErrorEnvelope(error: failure))) ?? Data())
        }
    }
}
