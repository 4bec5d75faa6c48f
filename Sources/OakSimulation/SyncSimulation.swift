import Foundation
import OakClient
import OakModels
import OakStore
import OakStoreKit
import OakStoreSQLite
import OakSync
import OakTestBasics

/// One run of the sync simulator, in the spirit of FoundationDB's simulation tests and TigerBeetle's VOPR: three
/// devices (the real `SyncEngine` over in-memory `LocalStore`s) and a real SQLite store, joined by a network
/// where nothing moves until the scheduler says so. One seed decides everything: each step's action, which
/// device acts, what it writes, when it syncs, which waiting request goes next (reordering), whether a request
/// or its response is lost, sent twice, or delivered late after the device gave up on it, each device's clock
/// skew (up to ±10 minutes), when devices go offline, and when the server is backed up and restored. Then the
/// network heals, every device syncs until nothing is left, and the oracle (`SyncOracle`) checks the server and
/// every device against the written rule.
public struct SyncSimulation: Sendable {
    static let deviceCount = 3
    static let species = ["alba", "rubra", "ilex"]
    static let words = ["lobed", "entire", "grey", "scaly", "striped", "tall", "tiny"]
    static let editedFields: [NoteFields.Field] = [.leaf, .bark, .acorn, .form]

    let seed: UInt64
    /// Steps to take; nil: from 20 to 100, as the seed decides.
    let steps: Int?

    /// The command that runs this seed again.
    var replay: String { "scripts/simulate --seed \(seed)" }

    /// The steps a run took, written only when asked for: a seed runs without it, and one that fails runs again
    /// with it for its report (the seed replays exactly), so the passing seeds spend nothing on their story.
    struct StepLog {
        let enabled: Bool
        private(set) var lines: [String] = []

        init(enabled: Bool) {
            self.enabled = enabled
        }

        mutating func append(_ line: @autoclosure () -> String) {
            if enabled { lines.append(line()) }
        }
    }

    /// The databases each run starts from, kept between runs: servers holding what the template file holds (migrated,
    /// with the standard sources and the simulation's species), and devices' stores, migrated and empty.
    public struct Templates: Sendable {
        public let directory: URL
        let server: ServerTemplate
        let servers: SimulatedServers
        let devices: DeviceStores
    }

    public static func makeTemplates() async throws -> Templates {
        let directory = temporaryDirectory("oak-sim-template")
        let path = directory.appendingPathComponent("server.db").path
        let store = try SQLiteStore(path: path, seedStarterData: false)
        for name in species {
            var patch = SpeciesPatch()
            patch.scientificName = .value(name)
            _ = try await store.createSpecies(patch)
        }
        try store.close()
        let server = try ServerTemplate(path: path)
        return Templates(directory: directory, server: server, servers: SimulatedServers(template: server, directory: directory), devices: DeviceStores())
    }

    /// Runs the seed; nil when the rule held, else what went wrong, with the steps it took.
    func run(templates: Templates) async throws -> String? {
        guard let failure = try await run(templates: templates, log: StepLog(enabled: false)) else { return nil }
        return try await run(templates: templates, log: StepLog(enabled: true))
            ?? failure + "\n(run again to log its steps, the seed passed: it does not replay, which is a fault of the simulator)"
    }

    private func run(templates: Templates, log: StepLog) async throws -> String? {
        var log = log
        var random = SeededRandom(seed: seed)
        let steps = steps ?? Int.random(in: 20...100, using: &random)
        let server = try templates.servers.take()
        // Given back when the run passes; else dropped, with its stores as they are.
        var serverGivenBack = false
        defer { if !serverGivenBack { try? server.close() } }
        let clock = server.clock
        let network = SimulatedNetwork()
        let devices = try (0..<Self.deviceCount).map { index in
            // Up to ten minutes either way, to the millisecond.
            let skew = Double(Int.random(in: -600_000...600_000, using: &random)) / 1000
            let ids = SeededIDs(seed: random.next())
            return SimulatedDevice(
                index: index, store: try templates.devices.take(), network: network, clock: { clock.now.addingTimeInterval(skew) },
                makeID: ids.next)
        }
        var oracle = SyncOracle()
        var late: [TransportRequest] = []

        for step in 0..<steps {
            clock.advance(milliseconds: Int.random(in: 1...3000, using: &random))
            let roll = Int.random(in: 0..<100, using: &random)
            let device = devices[Int.random(in: 0..<devices.count, using: &random)]
            switch roll {
            case 0..<35:
                if let write = try await device.write(using: &random) {
                    oracle.record(species: write.species, write.write)
                    log.append("\(step): \(write.species) \(write.write)")
                }
            case 35..<50:
                guard device.connectivity.isOnline, !network.isSyncing(device.index) else { continue }
                log.append("\(step): device \(device.index) syncs")
                device.startSync(network)
                await network.settle(device.index)
            case 50..<82:
                let waiting = network.waiting
                guard !waiting.isEmpty else { continue }
                let request = network.take(Int.random(in: 0..<waiting.count, using: &random))
                let what = { "\(step): device \(request.device) \(request.request.method) \(request.request.url.path)" }
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<60:
                    let response = await server.handle(request.request)
                    log.append("\(what()) answered \(response.status) \(Self.summary(response))")
                    request.answer.resume(returning: .success(response))
                case 60..<70:
                    log.append("\(what()) lost")
                    request.answer.resume(returning: .failure(SimulatedNetworkFailure()))  // the request is lost
                case 70..<80:
                    let response = await server.handle(request.request)  // the response is lost
                    log.append("\(what()) applied, answer lost \(Self.summary(response))")
                    request.answer.resume(returning: .failure(SimulatedNetworkFailure()))
                case 80..<90:
                    _ = await server.handle(request.request)  // sent twice
                    let response = await server.handle(request.request)
                    log.append("\(what()) sent twice, answered \(response.status) \(Self.summary(response))")
                    request.answer.resume(returning: .success(response))
                default:
                    log.append("\(what()) timed out, arrives later")
                    late.append(request.request)  // the device times out; the request arrives later
                    request.answer.resume(returning: .failure(SimulatedNetworkFailure()))
                }
                await network.settle(request.device)
            case 82..<87:
                guard !late.isEmpty else { continue }
                let request = late.remove(at: Int.random(in: 0..<late.count, using: &random))
                let response = await server.handle(request)
                log.append("\(step): a late \(request.method) \(request.url.path) arrives: \(response.status) \(Self.summary(response))")
            case 87..<95:
                device.connectivity.set(online: !device.connectivity.isOnline)
                log.append("\(step): device \(device.index) \(device.connectivity.isOnline ? "online" : "offline")")
            case 95..<98:
                try await server.takeBackup()
                log.append("\(step): backup")
            default:
                guard server.hasBackup else { continue }
                try server.restore()
                log.append("\(step): restore")
            }
        }

        // The network heals: late requests arrive, every device comes online and syncs until nothing is left.
        log.append("the network heals")
        for request in late {
            let response = await server.handle(request)
            log.append("a late \(request.method) \(request.url.path) arrives: \(response.status) \(Self.summary(response))")
        }
        for device in devices { device.connectivity.set(online: true) }
        for _ in 0..<6 {
            for device in devices {
                if !network.isSyncing(device.index) { device.startSync(network) }
                try await Self.drain(device, network, server, &log)
            }
            var pending = 0
            for device in devices { pending += try await device.device.notes.pendingCount() }
            if pending == 0 { break }
        }
        // A last sync for each device the others' syncs left behind.
        for device in devices where try await !Self.isCurrent(device, server) {
            device.startSync(network)
            try await Self.drain(device, network, server, &log)
        }
        guard let failure = try await check(devices, server, oracle, log) else {
            // Every sync has ended: the stores go back for the next run (a failed run's are dropped, as they are).
            try await templates.devices.giveBack(devices.map(\.device.store))
            try await templates.servers.giveBack(server)
            serverGivenBack = true
            return nil
        }
        return failure
    }

    /// Whether a pull from the device's cursor would bring nothing: its last sync left it with everything the
    /// server holds, and another sync could change nothing (the oracle still checks it holds what it should).
    private static func isCurrent(_ device: SimulatedDevice, _ server: SimulatedServer) async throws -> Bool {
        guard let cursor = try await device.device.store.cursor(),
            let page = try? await server.store.pull(cursor: cursor, limit: 1, entities: SyncEntity.allCases)
        else { return false }
        let pulled = try JSONDecoder().decode(PullResponse.self, from: Data(page.body.readableBytesView))
        return pulled.changes.isEmpty && !pulled.hasMore
    }

    /// A response in a few words for the log: a push's statuses, a pull's changes, an error's reason.
    static func summary(_ response: TransportResponse) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any] else { return "" }
        if let results = object["results"] as? [[String: Any]] {
            return results.map { "\(($0["id"] as? String)?.prefix(4) ?? "")=\($0["status"] ?? "")/\($0["version"] ?? "-")" }.joined(separator: " ")
        }
        if let changes = object["changes"] as? [[String: Any]] {
            return changes.filter { $0["entity"] as? String == "notes" }.map { change in
                let record = change["record"] as? [String: Any]
                return "\(change["op"] ?? "") \(record?["scientificName"] ?? (change["key"] as? String)?.prefix(4) ?? "")/\(change["version"] ?? "")"
            }.joined(separator: " ") + " -> \(object["cursor"] ?? "")"
        }
        return "\(((object["error"] as? [String: Any])?["details"] as? [String: Any])?["reason"] ?? "")"
    }

    /// Answers every request until the device's sync ends (and any other device's waiting request too).
    private static func drain(_ device: SimulatedDevice, _ network: SimulatedNetwork, _ server: SimulatedServer, _ log: inout StepLog) async throws {
        while true {
            await network.settle(device.index)
            let waiting = network.waiting
            guard !waiting.isEmpty else {
                if !network.isSyncing(device.index) { return }
                continue
            }
            let request = network.take(0)
            let response = await server.handle(request.request)
            log.append("device \(request.device) \(request.request.method) \(request.request.url.path) answered \(response.status) \(summary(response))")
            request.answer.resume(returning: .success(response))
        }
    }

    /// The oracle's notes against the server's and each device's.
    private func check(_ devices: [SimulatedDevice], _ server: SimulatedServer, _ oracle: SyncOracle, _ log: StepLog) async throws -> String? {
        var problems: [String] = []
        let serverNotes = try await server.store.notes(species: nil, sourceId: Source.personalObservationID)
        let serverBySpecies = Dictionary(grouping: serverNotes, by: \.scientificName)
        for name in Self.species {
            let expected = oracle.expected(name)
            let held = serverBySpecies[name] ?? []
            if held.count > 1 { problems.append("the server holds \(held.count) notes for \(name)") }
            if held.first?.fields != expected {
                problems.append(
                    "server, \(name): holds \(held.first.map { "\($0.fields)" } ?? "no note"), the rule says \(expected.map { "\($0)" } ?? "no note")\n\(oracle.history(name))"
                )
            }
        }
        let serverState = serverNotes.map { "\($0.id) \($0.fields)" }.sorted()
        for device in devices {
            let local = try await device.device.notes.notes()
            let pending = try await device.device.notes.pendingCount()
            if pending > 0 { problems.append("device \(device.index) still has \(pending) changes to push") }
            if local.map({ "\($0.id) \($0.fields)" }).sorted() != serverState {
                problems.append(
                    "device \(device.index) holds \(local.map { "\($0.scientificName): \($0.fields)" }) but the server \(serverNotes.map { "\($0.scientificName): \($0.fields)" })"
                )
            }
        }
        guard !problems.isEmpty else { return nil }
        return "seed \(seed) broke the sync rule:\n" + problems.joined(separator: "\n") + "\nsteps:\n" + log.lines.joined(separator: "\n")
            + "\nreplay: \(replay)"
    }
}

/// A simulated phone: a real device (store, repositories, engine) on an empty store of its own and the network.
final class SimulatedDevice: @unchecked Sendable {
    let index: Int
    let device: OakDevice
    let connectivity = ManualConnectivity()
    private var sync: Task<Void, Never>?

    init(index: Int, store: LocalStore, network: SimulatedNetwork, clock: @escaping @Sendable () -> Date, makeID: @escaping @Sendable () -> UUID) {
        self.index = index
        let configuration = SyncConfiguration(
            pushBatchSize: 3, pullPageSize: 4, snapshotPageSize: 1000,
            retry: RetryPolicy(maxAttempts: 2, baseDelay: .zero, maxDelay: .zero), maxRounds: 3)
        device = OakDevice(
            store: store,
            server: DeviceServer(
                baseURL: URL(string: "http://simulated.invalid")!, apiKey: "simulated", transport: SimulatedTransport(device: index, network: network),
                timeout: .seconds(1)),
            connectivity: connectivity, configuration: configuration, sleeper: NoSleep(), clock: clock, makeID: makeID)
    }

    /// Starts a sync; the scheduler answers its requests.
    func startSync(_ network: SimulatedNetwork) {
        guard let engine = device.engine else { return }
        network.syncStarted(index)
        sync = Task { [index] in
            await engine.sync()
            network.syncEnded(index)
        }
    }

    /// A user write the seed chooses on one species: edit or delete the note the device shows, or, on a species
    /// this device looks after, make it. Species are looked after by one device each, as a person keeps one
    /// note per species (the note made again after a delete keeps its id).
    func write(using random: inout SeededRandom) async throws -> (species: String, write: SyncOracle.Write)? {
        let name = SyncSimulation.species[Int.random(in: 0..<SyncSimulation.species.count, using: &random)]
        let notes = device.notes
        if let shown = try await notes.notes(species: name).first {
            if Int.random(in: 0..<5, using: &random) == 0 {
                let deleted = try await notes.delete(id: shown.id)
                return (name, SyncOracle.Write(device: index, time: deleted.updatedAt, fields: nil))
            }
            var fields = shown.fields
            for _ in 0..<Int.random(in: 1...2, using: &random) {
                let field = SyncSimulation.editedFields[Int.random(in: 0..<SyncSimulation.editedFields.count, using: &random)]
                fields[field] = Int.random(in: 0..<6, using: &random) == 0 ? nil : SyncSimulation.words.randomElement(using: &random)
            }
            let edited = try await notes.update(id: shown.id, fields: fields)
            var written: [NoteFields.Field: String?] = [:]
            for field in NoteFields.Field.allCases where shown.fields[field] != edited.fields[field] { written[field] = edited.fields[field] }
            return (name, SyncOracle.Write(device: index, time: edited.updatedAt, fields: written))
        }
        guard SyncSimulation.species.firstIndex(of: name)! % SyncSimulation.deviceCount == index else { return nil }
        var fields = NoteFields()
        for field in SyncSimulation.editedFields where Bool.random(using: &random) {
            fields[field] = SyncSimulation.words.randomElement(using: &random)
        }
        let made = try await notes.create(scientificName: name, fields: fields)
        var written: [NoteFields.Field: String?] = [:]
        for field in NoteFields.Field.allCases { written[field] = made.fields[field] }
        return (name, SyncOracle.Write(device: index, time: made.updatedAt, fields: written))
    }
}

/// Note ids from a seed, so a seed names its notes the same way every time it runs (the order of notes with one
/// time follows their ids).
final class SeededIDs: @unchecked Sendable {
    private let lock = NSLock()
    private var random: SeededRandom

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
    }

    @Sendable func next() -> UUID {
        lock.withLock {
            var bytes = [UInt8](repeating: 0, count: 16)
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &random) }
            bytes[6] = bytes[6] & 0x0F | 0x40
            bytes[8] = bytes[8] & 0x3F | 0x80
            return UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
                    bytes[12], bytes[13], bytes[14], bytes[15]
                ))
        }
    }
}
