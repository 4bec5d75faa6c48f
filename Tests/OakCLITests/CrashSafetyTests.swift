import Foundation
import GRDB
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Pushes note changes to a live `oak serve` with its owner key, and answers the results' statuses.
private func push(_ changes: [[String: Any]], to server: ServerProcess) async throws -> [String] {
    var request = URLRequest(url: URL(string: "\(server.url)/api/v1/sync/push")!)
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.setValue("Bearer \(server.key)", forHTTPHeaderField: "Authorization")
    request.httpBody = try JSONSerialization.data(withJSONObject: ["changes": changes])
    let (data, response) = try await URLSession.shared.data(for: request)
    guard (response as? HTTPURLResponse)?.statusCode == 200,
        let results = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["results"] as? [[String: Any]]
    else { throw URLError(.badServerResponse) }
    return results.map { $0["status"] as? String ?? "" }
}

@Suite("Crash safety of the write path (oak serve killed with SIGKILL)")
struct CrashSafetyTests {
    @Test("kill -9 during pushes: every acknowledged change is in the database after restart, the file is intact, and a re-sent push changes nothing")
    func killedDuringPushes() async throws {
        let (home, path) = try await starterDatabase()
        let species = try await DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT scientific_name FROM oak_entries ORDER BY scientific_name LIMIT 20")
        }
        var server = try await ServerProcess(database: path, home: home)
        // A source of its own, so every note below is new for its species.
        var create = URLRequest(url: URL(string: "\(server.url)/api/v1/sources")!)
        create.httpMethod = "POST"
        create.setValue("application/json", forHTTPHeaderField: "Content-Type")
        create.setValue("Bearer \(server.key)", forHTTPHeaderField: "Authorization")
        create.httpBody = Data(#"{"source_type":"Personal Observation","name":"Crash test"}"#.utf8)
        let (created, _) = try await URLSession.shared.data(for: create)
        let sourceID = try #require((try JSONSerialization.jsonObject(with: created) as? [String: Any])?["id"] as? Int)

        let ids = species.map { _ in UUID().uuidString.lowercased() }
        let start = Date().addingTimeInterval(-3600)
        /// Round `round` of the changes: every note's field notes say which round wrote them, each round later.
        @Sendable func changes(round: Int) -> [[String: Any]] {
            zip(ids, species).map { id, name in
                [
                    "id": id, "op": "upsert", "baseVersion": NSNull(),
                    "updatedAt": start.addingTimeInterval(Double(round) / 1000).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
                    "note": ["scientificName": name, "sourceId": sourceID, "fields": ["fieldNotes": "round \(round)"]],
                ]
            }
        }
        #expect(try await push(changes(round: 0), to: server) == Array(repeating: "applied", count: ids.count))

        // Rounds go out back to back; the last one answered `applied` is the newest the server acknowledged.
        let running = server
        let writer = Task { () -> Int in
            var acknowledged = 0
            for round in 1... {
                guard let statuses = try? await push(changes(round: round), to: running) else { return acknowledged }
                #expect(statuses == Array(repeating: "applied", count: ids.count))
                acknowledged = round
            }
            return acknowledged
        }
        try await Task.sleep(for: .milliseconds(1500))
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        let acknowledged = await writer.value
        #expect(acknowledged > 0, "no push was acknowledged before the kill")

        let queue = try DatabaseQueue(path: path)
        #expect(try await queue.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
        let stored = try await queue.read { db in
            try String.fetchAll(
                db, sql: "SELECT miscellaneous FROM species_sources WHERE source_id = ? ORDER BY scientific_name", arguments: [sourceID])
        }
        try queue.close()
        #expect(stored.count == ids.count)
        for text in stored {
            // The acknowledged round, or a later one that committed while its answer was cut off.
            let round = Int(text.dropFirst("round ".count)) ?? -1
            #expect(round >= acknowledged, "a note holds \(text) after round \(acknowledged) was acknowledged")
        }

        // After the restart the server serves the same data, and a round it already applied changes nothing.
        server = try await ServerProcess(database: path, home: home, port: server.port)
        let again = try await push(changes(round: acknowledged), to: server)
        #expect(again.allSatisfy { $0 == "applied" || $0 == "stale" })
        let after = try await DatabaseQueue(path: path).read { db in
            try String.fetchAll(
                db, sql: "SELECT miscellaneous FROM species_sources WHERE source_id = ? ORDER BY scientific_name", arguments: [sourceID])
        }
        #expect(after == stored)
        server.stop()
    }
}
