import Foundation
import GRDB
import NIOCore
import OakClient
import OakModels
import OakStore
import OakStoreSQLite

@testable import OakSync

/// The simulation's time: the server's clock. A device reads it with its own skew.
final class SimulatedClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(start: Date) {
        current = start
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
            try await store.writer.write { db in
                let tables = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'")
                for table in tables { try db.execute(sql: "DELETE FROM \(table.quotedDatabaseIdentifier)") }
            }
        }
        lock.withLock { idle += stores }
    }
}

/// The server: a real SQLite store on a file of its own, spoken to as the sync routes speak to it. It can be
/// backed up and restored from that backup, as an operator does (`cp backup oak.db`).
final class SimulatedServer: @unchecked Sendable {
    private(set) var store: SQLiteStore
    let path: String
    private let clock: SimulatedClock
    private var backup: String?

    /// A server on a copy of `template`.
    init(template: String, directory: URL, clock: SimulatedClock) throws {
        path = directory.appendingPathComponent("server.db").path
        try FileManager.default.copyItem(atPath: template, toPath: path)
        self.clock = clock
        store = try SQLiteStore(path: path, seedStarterData: false, clock: { clock.now })
    }

    var hasBackup: Bool { backup != nil }

    func takeBackup() async throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("backups").path
        let info = try await store.backup(into: directory, keep: 1)
        backup = URL(fileURLWithPath: directory).appendingPathComponent(info.filename).path
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
