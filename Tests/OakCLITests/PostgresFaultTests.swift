import Foundation
import OakModels
import OakTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A PostgreSQL cluster of one test's own, started by `scripts/with-postgres` (so it may be crashed without
/// touching the other tests' cluster), with its control script (`stop-immediate`, `start`).
private final class PrivateCluster: @unchecked Sendable {
    let process: SpawnedProcess
    let url: String
    private let control: String

    init() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let info = temporaryHome().appendingPathComponent("cluster")
        var environment = ProcessInfo.processInfo.environment
        environment["OAK_TEST_DATABASE_URL"] = nil
        process = try SpawnedProcess(
            executable: URL(fileURLWithPath: "/bin/bash"),
            arguments: [
                root.appendingPathComponent("scripts/with-postgres").path, "bash", "-c",
                #"printf '%s\n%s\n' "$OAK_TEST_DATABASE_URL" "$OAK_TEST_PG_CONTROL" > "$0.tmp" && mv "$0.tmp" "$0" && exec sleep 100000"#,
                info.path,
            ],
            environment: environment)
        let deadline = ContinuousClock.now + .seconds(120)
        while !FileManager.default.fileExists(atPath: info.path) {
            guard process.isRunning, ContinuousClock.now < deadline else { throw OakError(.internalError, "the private cluster did not start") }
            try await Task.sleep(for: .milliseconds(100))
        }
        let lines = try String(contentsOf: info, encoding: .utf8).split(separator: "\n").map(String.init)
        (url, control) = (lines[0], lines[1])
        // Acknowledged means on disk here: a crash keeps every commit the server answered.
        try await postgresExecute(url: url, "ALTER DATABASE oak_test SET synchronous_commit = on")
    }

    /// Kills the database as a crash would, or starts it again.
    func run(_ action: String) throws {
        let child = try SpawnedProcess(executable: URL(fileURLWithPath: control), arguments: [action], environment: ProcessInfo.processInfo.environment)
        child.waitUntilExit()
        #expect(child.terminationStatus == 0, "cluster \(action)")
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// One answer a client got: status, how long it took, the `Retry-After` header and the error code.
private struct Answer: Sendable {
    var status: Int
    var seconds: Double
    var retryAfter: String?
    var code: String?
}

/// Sends a request; never throws for an HTTP status (a transport failure counts as status 0).
private func request(_ method: String, _ url: String, json: Any? = nil, key: String? = nil, timeout: Double = 30) async -> (Answer, Any?) {
    var request = URLRequest(url: URL(string: url)!, timeoutInterval: timeout)
    request.httpMethod = method
    if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
    if let json {
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try? JSONSerialization.data(withJSONObject: json)
    }
    let started = ContinuousClock.now
    do {
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        let body = try? JSONSerialization.jsonObject(with: data)
        let code = ((body as? [String: Any])?["error"] as? [String: Any])?["code"] as? String
        return (
            Answer(
                status: http?.statusCode ?? 0, seconds: (ContinuousClock.now - started).inSeconds, retryAfter: http?.value(forHTTPHeaderField: "Retry-After"),
                code: code), body
        )
    } catch {
        return (Answer(status: 0, seconds: (ContinuousClock.now - started).inSeconds), nil)
    }
}

/// A plain-text answer.
private func text(_ url: String) async -> (Int, String) {
    guard let (data, response) = try? await URLSession.shared.data(from: URL(string: url)!) else { return (0, "") }
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}

/// A push writing `text` to the note under each id, on the species at the same place (made when new).
private func pushBody(_ ids: [String], species: [String], text: String = "pushed through the fault") -> [String: Any] {
    [
        "changes": zip(ids, species).map { id, name in
            [
                "id": id, "op": "upsert", "baseVersion": NSNull(), "updatedAt": WireTime.formatPrecise(Date()),
                "note": ["scientificName": name, "sourceId": NSNull(), "fields": ["leaf": text]],
            ] as [String: Any]
        }
    ]
}

/// Waits for a server process to exit, up to `limit`; whether it did.
private func exits(_ server: ServerProcess, within limit: Duration) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while server.process.isRunning {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: .milliseconds(50))
    }
    return true
}

/// `oak serve` on PostgreSQL through the database's real faults: a private cluster killed with
/// `pg_ctl stop -m immediate` and started again, backends terminated mid-batch, SIGTERM in every state.
@Suite(
    "oak serve through PostgreSQL's faults", .serialized,
    .needsPostgres)
struct PostgresFaultTests {
    /// Species names of the starter dataset, for notes of their own (one note per species and source).
    private static func speciesNames(_ server: ServerProcess) async throws -> [String] {
        let (_, body) = await request("GET", "\(server.url)/api/v1/species?limit=200")
        let items = try #require((body as? [String: Any])?["data"] as? [[String: Any]])
        return items.compactMap { $0["scientific_name"] as? String }
    }

    @Test(
        "crash: PostgreSQL killed and started again, twice, while four clients push: no acknowledged note lost, every answer 200 or a 503 with Retry-After within 5 s, writes taken again within 10 s of the return, readiness follows the database, and SIGTERM then stops the server"
    )
    func crashWhileClientsPush() async throws {
        let cluster = try await PrivateCluster()
        defer { cluster.stop() }
        let home = temporaryHome()
        let log = home.appendingPathComponent("serve.log")
        let server = try await ServerProcess(
            database: cluster.url, home: home, extraArguments: ["--database-wait", "2", "--log-level", "debug"], log: log)
        defer { server.stop() }
        let species = try await Self.speciesNames(server)
        #expect(species.count >= 40)

        let clients = PushingClients(server: server, species: species, notesPerClient: 10, notesPerPush: 2, whenRefused: .tryAgain)
        try await withThrowingTaskGroup(of: Void.self) { group in
            clients.start(in: &group)
            for _ in 0..<2 {
                try await Task.sleep(for: .milliseconds(800))
                try cluster.run("stop-immediate")
                try await Task.sleep(for: .seconds(3))
                let (ready, _) = await request("GET", "\(server.url)/health/ready")
                #expect(ready.status == 503, "readiness while the database is away")
                try cluster.run("start")
                let back = ContinuousClock.now
                // Writes are taken again within 10 s of the database's return.
                var taken = false
                while !taken, ContinuousClock.now - back < .seconds(10) {
                    let id = UUID().uuidString.lowercased()
                    let (answer, _) = await request(
                        "POST", "\(server.url)/api/v1/sync/push", json: ["changes": [["id": id, "op": "delete", "updatedAt": WireTime.formatPrecise(Date())]]],
                        key: server.key)
                    taken = answer.status == 200
                    if !taken { try await Task.sleep(for: .milliseconds(200)) }
                }
                #expect(taken, "writes taken again within 10 s of the database's return")
                #expect(await request("GET", "\(server.url)/health/ready").0.status == 200, "readiness once the database is back")
            }
            try await Task.sleep(for: .milliseconds(500))
            clients.stop()
            try await group.waitForAll()
        }

        let all = clients.answers.items
        if all.contains(where: { $0.status != 200 && $0.status != 503 }) {
            Issue.record("the server's log:\n\((try? String(contentsOf: log, encoding: .utf8))?.suffix(20_000) ?? "")")
        }
        #expect(all.contains { $0.status == 503 }, "some pushes met the database away")
        for answer in all {
            #expect(answer.status == 200 || answer.status == 503, "every answer is 200 or 503, not \(answer.status)")
            #expect(answer.seconds < 5, "answered within 5 s, not \(answer.seconds) s")
            if answer.status == 503 {
                #expect(answer.retryAfter != nil && answer.code == "SERVICE_UNAVAILABLE")
            }
        }
        // No acknowledged change was lost: each note holds the last text its client was told was applied.
        #expect(clients.latest.count == 40)
        await clients.expectAcknowledgedKept(by: server)

        // Operating it: the start names the database's version and the pool; /metrics counts the waits and the failures.
        let started = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(started.contains("PostgreSQL 1") && started.contains("a pool of 20 connections, waits of at most 2.0 seconds"))
        let (_, metrics) = await text("\(server.url)/metrics")
        #expect(metrics.contains(#"oak_db_failures_total{kind="database_unavailable"}"#), "\(metrics.prefix(3000))")
        #expect(metrics.contains("oak_db_connection_waits_total") && metrics.contains("oak_db_connection_wait_seconds_total"))

        server.process.terminate()
        #expect(try await exits(server, within: .seconds(10)), "SIGTERM stops the server after the database came back")
        #expect(server.process.terminationStatus == 0)
    }

    @Test(
        "the pool exhausted by slow writes: a request that gets no connection within --database-wait is answered 503 with Retry-After in time, readiness too, the writes holding the pool finish, and the server answers again"
    )
    func poolExhaustedBySlowWrites() async throws {
        let url = try await temporaryPostgresDatabase()
        let home = temporaryHome()
        let server = try await ServerProcess(database: url, home: home, extraArguments: ["--database-pool-size", "2", "--database-wait", "1"])
        defer { server.stop() }
        let species = try await Self.speciesNames(server)

        // Another program holds, for six seconds, the lock every write takes first (the change log's counter).
        let psql = ProcessInfo.processInfo.environment["OAK_TEST_PG_BINDIR"].map { "\($0)/psql" } ?? "psql"
        let holder = try SpawnedProcess(
            executable: URL(fileURLWithPath: "/usr/bin/env"),
            arguments: [psql, "-X", "-q", url, "-c", "SELECT seq FROM change_log_head FOR UPDATE; SELECT pg_sleep(6)"],
            environment: ProcessInfo.processInfo.environment)
        defer { holder.terminate() }
        try await Self.waitUntil(
            url, "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%pg_sleep(6)%' AND pid <> pg_backend_pid()",
            atLeast: 1)

        // Two pushes take both of the server's connections and wait for that lock.
        let pushes = (0..<2).map { index in
            Task {
                let (answer, reply) = await request(
                    "POST", "\(server.url)/api/v1/sync/push", json: pushBody([UUID().uuidString.lowercased()], species: [species[index]]), key: server.key)
                return (answer, ((reply as? [String: Any])?["results"] as? [[String: Any]])?.first?["status"] as? String)
            }
        }
        try await Self.waitUntil(url, "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'", atLeast: 2)

        // A read now finds no connection: refused after the configured wait, not left hanging.
        let (refused, _) = await request("GET", "\(server.url)/api/v1/notes?species=\(species[2])")
        #expect(refused.status == 503)
        #expect(refused.retryAfter != nil && refused.code == "SERVICE_UNAVAILABLE")
        #expect(refused.seconds >= 0.9 && refused.seconds < 3, "refused after the configured wait of 1 s, not \(refused.seconds) s")
        // Readiness says the same, so a proxy sends the traffic elsewhere.
        #expect(await request("GET", "\(server.url)/health/ready").0.status == 503)

        // The lock goes: the writes holding the pool finish, and requests are answered again.
        while holder.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        for push in pushes {
            let (answer, status) = await push.value
            #expect(answer.status == 200)
            #expect(status == "applied")
        }
        #expect(await request("GET", "\(server.url)/api/v1/notes?species=\(species[2])").0.status == 200)
        #expect(await request("GET", "\(server.url)/health/ready").0.status == 200)
    }

    /// Waits (up to 10 s) until a count query on the database gives at least `count`.
    private static func waitUntil(_ url: String, _ query: String, atLeast count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try await postgresCount(url: url, query, []) < count {
            guard ContinuousClock.now < deadline else { throw OakError(.internalError, "still fewer than \(count): \(query)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test("SIGTERM while the database is away, with requests in flight: the server stops within 10 s")
    func sigtermWhileDatabaseAway() async throws {
        let cluster = try await PrivateCluster()
        defer { cluster.stop() }
        let server = try await ServerProcess(database: cluster.url, home: temporaryHome())
        defer { server.stop() }
        try cluster.run("stop-immediate")
        let inFlight = Task { await request("GET", "\(server.url)/api/v1/species?limit=5").0 }
        try await Task.sleep(for: .milliseconds(300))
        server.process.terminate()
        #expect(try await exits(server, within: .seconds(10)), "SIGTERM stops the server while the database is away")
        let answer = await inFlight.value
        #expect(answer.status == 503 || answer.status == 0, "the request in flight is refused or its connection closed, not \(answer.status)")
        try cluster.run("start")
    }

    @Test(
        "a push batch whose connection is cut (pg_terminate_backend) is all or nothing: a 503 stored none of it, and the resend is applied once, then answered identically"
    )
    func connectionCutMidBatch() async throws {
        let url = try await temporaryPostgresDatabase()
        let database = try #require(URLComponents(string: url)?.path.dropFirst()).description
        let server = try await ServerProcess(database: url, home: temporaryHome())
        defer { server.stop() }
        let species = try await Self.speciesNames(server)
        var cut = false
        for _ in 0..<40 where !cut {
            let ids = species.map { _ in UUID().uuidString.lowercased() }
            let body = pushBody(ids, species: species.map { $0 })
            // Delete what an earlier attempt stored, so each batch creates every note anew.
            try await postgresExecute(url: url, "DELETE FROM species_sources WHERE source_id = 3")
            async let answered = request("POST", "\(server.url)/api/v1/sync/push", json: body, key: server.key)
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...40)))
            try await postgresExecute(
                url: TestBackend.postgresURL!,
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()", [database])
            let (first, _) = await answered
            let stored = try await postgresCount(url: url, "SELECT COUNT(*) FROM species_sources WHERE source_id = 3", [])
            if first.status == 503 {
                cut = true
                #expect(stored == 0, "a batch cut off stored nothing, not \(stored) of \(ids.count)")
                #expect(first.retryAfter != nil && first.code == "SERVICE_UNAVAILABLE")
            } else {
                #expect(first.status == 200)
                #expect(stored == ids.count)
                continue
            }
            let (resent, reply) = await request("POST", "\(server.url)/api/v1/sync/push", json: body, key: server.key)
            #expect(resent.status == 200)
            let (again, replyAgain) = await request("POST", "\(server.url)/api/v1/sync/push", json: body, key: server.key)
            #expect(again.status == 200)
            let statuses = ((reply as? [String: Any])?["results"] as? [[String: Any]])?.map { $0["status"] as? String }
            #expect(statuses == Array(repeating: "applied", count: ids.count))
            let once = try JSONSerialization.data(withJSONObject: reply ?? [:], options: .sortedKeys)
            let twice = try JSONSerialization.data(withJSONObject: replyAgain ?? [:], options: .sortedKeys)
            #expect(once == twice, "the resend's answer is identical")
            #expect(try await postgresCount(url: url, "SELECT COUNT(*) FROM species_sources WHERE source_id = 3", []) == ids.count)
        }
        #expect(cut, "no attempt cut a batch in the middle")
    }
}

/// Four clients pushing notes on species of their own, round after round, each note with a new text every round,
/// until stopped; every answer is kept, and each note's texts the server acknowledged (`applied`).
private final class PushingClients: Sendable {
    /// What a client does with a push that was not answered 200: send it again (for up to a minute), or stop.
    enum WhenRefused {
        case tryAgain, stop
    }

    let answers = LockedList<Answer>()
    private let acknowledged = LockedList<(id: String, text: String)>()
    private let stopped = LockedList<Bool>()
    private let server: ServerProcess
    private let species: [String]
    private let notesPerClient: Int
    private let notesPerPush: Int
    private let whenRefused: WhenRefused

    init(server: ServerProcess, species: [String], notesPerClient: Int, notesPerPush: Int, whenRefused: WhenRefused) {
        self.server = server
        self.species = species
        self.notesPerClient = notesPerClient
        self.notesPerPush = notesPerPush
        self.whenRefused = whenRefused
    }

    /// Starts the four clients as tasks of `group`.
    func start(in group: inout ThrowingTaskGroup<Void, any Error>) {
        for client in 0..<4 {
            group.addTask { try await self.push(as: client) }
        }
    }

    /// Makes every client stop after the push it is sending.
    func stop() {
        stopped.append(true)
    }

    /// The last text the server acknowledged for each note.
    var latest: [String: String] {
        var latest: [String: String] = [:]
        for (id, text) in acknowledged.items { latest[id] = text }
        return latest
    }

    /// Each acknowledged note holds, on `server`, the last text acknowledged for it.
    func expectAcknowledgedKept(by server: ServerProcess) async {
        for (id, text) in latest {
            let (answer, body) = await request("GET", "\(server.url)/api/v1/notes/\(id)")
            #expect(answer.status == 200)
            #expect(((body as? [String: Any])?["fields"] as? [String: Any])?["leaf"] as? String == text, "acknowledged note \(id)")
        }
    }

    private func push(as client: Int) async throws {
        let mine = Array(species.enumerated().filter { $0.offset % 4 == client }.map(\.element).prefix(notesPerClient))
        let ids = mine.map { _ in UUID().uuidString.lowercased() }
        var round = 0
        while stopped.isEmpty {
            round += 1
            for start in stride(from: 0, to: ids.count, by: notesPerPush) where stopped.isEmpty {
                let picked = Array(start..<min(start + notesPerPush, ids.count))
                let text = "client \(client), round \(round)"
                let body = pushBody(picked.map { ids[$0] }, species: picked.map { mine[$0] }, text: text)
                let giveUp = ContinuousClock.now + .seconds(60)
                while true {
                    let (answer, reply) = await request("POST", "\(server.url)/api/v1/sync/push", json: body, key: server.key)
                    answers.append(answer)
                    if answer.status == 200 {
                        let results = (reply as? [String: Any])?["results"] as? [[String: Any]] ?? []
                        for (index, result) in zip(picked, results) where result["status"] as? String == "applied" {
                            acknowledged.append((ids[index], text))
                        }
                        break
                    }
                    guard whenRefused == .tryAgain, ContinuousClock.now < giveUp else { return }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
        }
    }
}

/// A list appended to from several tasks.
private final class LockedList<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Element] = []

    func append(_ element: Element) { lock.withLock { storage.append(element) } }
    var items: [Element] { lock.withLock { storage } }
    var isEmpty: Bool { lock.withLock { storage.isEmpty } }
}

/// `oak serve` stopped by SIGTERM while clients push, on either backend (PostgreSQL with the database up).
@Suite("oak serve stopped while clients push")
struct ShutdownTests {
    @Test(
        "SIGTERM with pushes in flight: the server stops within 10 s with status 0, each push is answered or refused, and every acknowledged note is kept",
        arguments: [false, true])
    func sigtermWithPushesInFlight(onPostgres: Bool) async throws {
        guard !onPostgres || TestBackend.postgresURL != nil else { return }
        let home = temporaryHome()
        let database = onPostgres ? try await temporaryPostgresDatabase() : home.appendingPathComponent("oak.db").path
        let server = try await ServerProcess(database: database, home: home)
        defer { server.stop() }
        let (_, listing) = await request("GET", "\(server.url)/api/v1/species?limit=200")
        let species = try #require((listing as? [String: Any])?["data"] as? [[String: Any]]).compactMap { $0["scientific_name"] as? String }

        let clients = PushingClients(server: server, species: species, notesPerClient: 5, notesPerPush: 1, whenRefused: .stop)
        try await withThrowingTaskGroup(of: Void.self) { group in
            clients.start(in: &group)
            // Once every note was written (the clients go on writing them), the server is asked to stop.
            let deadline = ContinuousClock.now + .seconds(30)
            while clients.latest.count < 20, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            server.process.terminate()
            #expect(try await exits(server, within: .seconds(10)), "SIGTERM stops the server")
            #expect(server.process.terminationStatus == 0)
            try await group.waitForAll()
        }
        for answer in clients.answers.items {
            #expect([0, 200, 503].contains(answer.status), "a push is answered or refused, not \(answer.status)")
        }
        // Every acknowledged note is there when the server starts again.
        let again = try await ServerProcess(database: database, home: home)
        defer { again.stop() }
        #expect(clients.latest.count == 20)
        await clients.expectAcknowledgedKept(by: again)
    }

    @Test(
        "SIGTERM with a push still arriving (its body stalled): the push is refused with 503 and Retry-After within the stopping grace, nothing of it is written, and the server stops with status 0",
        arguments: [false, true])
    func sigtermWithPushStillArriving(onPostgres: Bool) async throws {
        guard !onPostgres || TestBackend.postgresURL != nil else { return }
        let home = temporaryHome()
        let database = onPostgres ? try await temporaryPostgresDatabase() : home.appendingPathComponent("oak.db").path
        let server = try await ServerProcess(database: database, home: home)
        defer { server.stop() }
        let id = UUID().uuidString.lowercased()
        let body = String(decoding: try JSONSerialization.data(withJSONObject: pushBody([id], species: ["alba"])), as: UTF8.self)
        let connection = try RawConnection(port: server.port)
        connection.send(
            "POST /api/v1/sync/push HTTP/1.1\r\nHost: oak\r\nAuthorization: Bearer \(server.key)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body.prefix(20))"
        )
        try await Task.sleep(for: .milliseconds(300))
        let stopped = ContinuousClock.now
        server.process.terminate()
        let answer = try #require(connection.readUntilClosed(timeout: .seconds(10)), "the server kept the stalled push's connection open")
        #expect(ContinuousClock.now - stopped < .seconds(6), "refused \(ContinuousClock.now - stopped) after SIGTERM")
        #expect(answer.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
        #expect(answer.contains("Retry-After: 2\r\n"))
        #expect(answer.contains(#""code":"SERVICE_UNAVAILABLE""#))
        #expect(try await exits(server, within: .seconds(10)), "SIGTERM stops the server")
        #expect(server.process.terminationStatus == 0)
        let again = try await ServerProcess(database: database, home: home)
        defer { again.stop() }
        #expect(await request("GET", "\(again.url)/api/v1/notes/\(id)").0.status == 404, "nothing of the refused push was written")
    }
}
