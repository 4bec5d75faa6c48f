import Foundation
import OakModels
import OakTestBasics
import OakTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a request to a server with a bearer key; the status and the body as JSON (nil when not JSON).
private func send(_ method: String, _ url: String, json: Any? = nil, key: String?) async throws -> (status: Int, body: Any?) {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = method
    if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
    if let json {
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: json)
    }
    let (data, response) = try await URLSession.shared.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, try? JSONSerialization.jsonObject(with: data))
}

/// Several `oak serve` processes on one PostgreSQL database, as the scale-out deployment runs them.
@Suite(
    "Two oak serve instances on one PostgreSQL database",
    .needsPostgres)
struct ScaleOutTests {
    @Test(
        "scale-out: a note pushed to one instance is pulled from the other, a token created once works on both, and neither serves a stale cached answer after the other's write"
    )
    func twoInstancesShareEverything() async throws {
        let url = try await temporaryPostgresDatabase()
        let home = temporaryHome()
        let first = try await ServerProcess(database: url, home: home)
        defer { first.stop() }
        let second = try await ServerProcess(database: url, home: home)
        defer { second.stop() }

        // A token made with the CLI on the shared database.
        let created = try await OakBinary.run(
            ["token", "create", "--database-url", url, "--name", "field-phone", "--abilities", "notes:write,species:write"], home: home)
        #expect(created.status == 0, "\(created.error)")
        let secret = try #require(created.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix("oak_") })

        // Each instance answers species reads from its cache from now on.
        for server in [first, second] {
            for _ in 0..<2 { #expect(try await send("GET", "\(server.url)/api/v1/species/alba", key: nil).status == 200) }
        }
        let before = try #require(try await send("GET", "\(second.url)/api/v1/sync/pull", key: nil).body as? [String: Any])
        let cursor = try #require(before["cursor"] as? String)

        // A note pushed to the first instance with the token...
        let id = UUID().uuidString.lowercased()
        let push: [String: Any] = [
            "changes": [
                [
                    "id": id, "op": "upsert", "baseVersion": NSNull(), "updatedAt": WireTime.format(Date()),
                    "note": ["scientificName": "alba", "fields": ["leaf": "lobed, pushed to the first"]],
                ]
            ]
        ]
        let pushed = try await send("POST", "\(first.url)/api/v1/sync/push", json: push, key: secret)
        #expect(pushed.status == 200)
        let results = try #require((pushed.body as? [String: Any])?["results"] as? [[String: Any]])
        #expect(results.first?["status"] as? String == "applied")

        // ...is pulled from the second.
        let pulled = try #require(try await send("GET", "\(second.url)/api/v1/sync/pull?since=\(cursor)", key: nil).body as? [String: Any])
        let changes = try #require(pulled["changes"] as? [[String: Any]])
        #expect(changes.contains { $0["key"] as? String == id && $0["op"] as? String == "upsert" })
        #expect(try await send("GET", "\(second.url)/api/v1/notes/\(id)", key: nil).status == 200)

        // A species edited through the second is seen by the first as soon as it hears the commit, its cached
        // answer dropped.
        let edit = try await send("PUT", "\(second.url)/api/v1/species/alba", json: ["author": "Edited on the second"], key: secret)
        #expect(edit.status == 200)
        #expect(try await Self.hearsTheHead(first, url: url), "the first heard the second's commit")
        let seen = try await send("GET", "\(first.url)/api/v1/species/alba", key: nil)
        #expect((seen.body as? [String: Any])?["author"] as? String == "Edited on the second")
        let full = try await send("GET", "\(first.url)/api/v1/species/alba/full", key: nil)
        #expect((full.body as? [String: Any])?["author"] as? String == "Edited on the second")

        // A note edited on the first reads back changed from the second.
        let noteEdit = try await send("PUT", "\(first.url)/api/v1/notes/\(id)", json: ["fields": ["leaf": "edited on the first"]], key: secret)
        #expect(noteEdit.status == 200)
        #expect(try await Self.hearsTheHead(second, url: url), "the second heard the first's commit")
        let note = try await send("GET", "\(second.url)/api/v1/notes/\(id)", key: nil)
        #expect(((note.body as? [String: Any])?["fields"] as? [String: Any])?["leaf"] as? String == "edited on the first")

        // Revoked with the CLI, the token stops working on both.
        #expect(try await OakBinary.run(["token", "revoke", "--database-url", url, "field-phone"], home: home).status == 0)
        for server in [first, second] {
            #expect(try await send("PUT", "\(server.url)/api/v1/species/alba", json: ["author": "x"], key: secret).status == 401)
        }
    }

    @Test(
        "change notifications cut: with the instance's listening connection terminated, a write through the other instance is still seen within the staleness bound, and once it listens again a write is seen as soon as its commit is heard"
    )
    func notificationConnectionCut() async throws {
        let url = try await temporaryPostgresDatabase()
        let database = try #require(URLComponents(string: url)?.path.dropFirst()).description
        let home = temporaryHome()
        let first = try await ServerProcess(database: url, home: home)
        defer { first.stop() }
        let second = try await ServerProcess(database: url, home: home)
        defer { second.stop() }
        let listeners = "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = ? AND application_name = 'oak change notifications'"
        #expect(try await eventually(within: .seconds(5)) { try await postgresCount(url: url, listeners, [database]) == 2 }, "each instance listens")
        for _ in 0..<2 { #expect(try await send("GET", "\(first.url)/api/v1/species/alba", key: nil).status == 200) }

        // Every listening connection is cut; the instances have not noticed yet when the write is made.
        try await postgresExecute(
            url: url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND application_name = 'oak change notifications'",
            [database])
        let edit = try await send("PUT", "\(second.url)/api/v1/species/alba", json: ["author": "Written while nobody listened"], key: first.key)
        #expect(edit.status == 200)
        let written = ContinuousClock.now
        let seen = try await eventually(within: .seconds(5)) {
            try await send("GET", "\(first.url)/api/v1/species/alba", key: nil).body.flatMap { ($0 as? [String: Any])?["author"] as? String }
                == "Written while nobody listened"
        }
        let after = ContinuousClock.now - written
        #expect(seen, "the write was never seen")
        // The bound is `ChangeNotifications.longestTrust` (1 s); the rest is slack for a loaded machine.
        #expect(after < .seconds(2), "seen \(after) after the write")

        // Both listen again, and a write through one is seen by the other once it hears the commit.
        #expect(
            try await eventually(within: .seconds(5)) { try await Self.metric("oak_db_change_notifications_listening", of: first) == 1 },
            "the first listens again")
        for _ in 0..<2 { #expect(try await send("GET", "\(first.url)/api/v1/species/alba", key: nil).status == 200) }
        #expect(try await send("PUT", "\(second.url)/api/v1/species/alba", json: ["author": "Heard again"], key: first.key).status == 200)
        #expect(try await Self.hearsTheHead(first, url: url), "the first heard the second's commit")
        let again = try await send("GET", "\(first.url)/api/v1/species/alba", key: nil)
        #expect((again.body as? [String: Any])?["author"] as? String == "Heard again")
    }

    /// Whether `server` hears, within 5 s, a commit that left the change log's head where it is now.
    private static func hearsTheHead(_ server: ServerProcess, url: String) async throws -> Bool {
        let head = Double(try await postgresCount(url: url, "SELECT seq FROM change_log_head", []))
        return try await eventually(within: .seconds(5)) { try await metric("oak_db_change_log_head_heard", of: server) ?? 0 >= head }
    }

    /// A metric's value in `server`'s `/metrics`, when it has one.
    private static func metric(_ name: String, of server: ServerProcess) async throws -> Double? {
        let (data, _) = try await URLSession.shared.data(from: URL(string: "\(server.url)/metrics")!)
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("\(name) ") }
        return line.flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }
    }
}
