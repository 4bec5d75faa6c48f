import Foundation
import GRDB
import OakTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `oak migrate` between a SQLite file and PostgreSQL, run as a user runs it.
@Suite(
    "oak migrate between SQLite and PostgreSQL",
    .needsPostgres)
struct MigrateCommandTests {
    /// The JSON of a GET.
    private func get(_ url: String) async throws -> (status: Int, body: [String: Any]) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: url)!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    @Test(
        "migrate: a file copied into PostgreSQL and back verifies every table and serves the same data; the copy is a history of its own, so a device's cursor is refused (410, other_database) and it pulls again"
    )
    func roundTrip() async throws {
        let (home, path) = try await starterDatabase()
        let note = try await OakBinary.run(["note", "alba", "--set", "leaf=lobed", "-d", path], home: home)
        #expect(note.status == 0, "\(note.error)")
        #expect(try await OakBinary.run(["token", "create", "-d", path, "--name", "phone", "--abilities", "notes:write"], home: home).status == 0)

        // A device synced with the file's server: its cursor.
        let fileServer = try await ServerProcess(database: path, home: home)
        let before = try await get("\(fileServer.url)/api/v1/sync/pull")
        let cursor = try #require(before.body["cursor"] as? String)
        let exported = try await URLSession.shared.data(from: URL(string: "\(fileServer.url)/api/v1/export")!).0
        fileServer.stop()

        let url = try await temporaryPostgresDatabase()
        let copied = try await OakBinary.run(["migrate", "--from", path, "--to", url], home: home, timeout: .seconds(60))
        #expect(copied.status == 0, "\(copied.error)")
        for table in ["sources", "taxa", "oak_entries", "species_sources", "api_tokens", "change_log", "sync_state"] {
            #expect(copied.output.split(separator: "\n").contains { $0.hasPrefix(table + " ") && $0.hasSuffix("ok") }, "\(table)")
        }
        #expect(copied.output.contains("every table verified"))
        // The copy left the planner its statistics, and was vacuumed of the dead versions it made (above all of the
        // change log's head, which every copied row updated). The vacuum's own report may reach the statistics
        // views a moment after it ends.
        #expect(try await postgresCount(url: url, "SELECT COUNT(*) FROM pg_stats WHERE tablename = ?", ["change_log"]) > 0)
        let vacuumed = "SELECT COUNT(*) FROM pg_stat_user_tables WHERE relname = ? AND last_vacuum IS NOT NULL"
        var headVacuumed = false
        for _ in 0..<50 where !headVacuumed {
            headVacuumed = try await postgresCount(url: url, vacuumed, ["change_log_head"]) == 1
            if !headVacuumed { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(headVacuumed)

        // The PostgreSQL server answers the same export. The copy may go on apart from the file (or be restored
        // later): the device's cursor is refused, and a pull from the start gives it everything again.
        let server = try await ServerProcess(database: url, home: home)
        defer { server.stop() }
        #expect(try await URLSession.shared.data(from: URL(string: "\(server.url)/api/v1/export")!).0 == exported)
        let refusedCursor = try await get("\(server.url)/api/v1/sync/pull?since=\(cursor)")
        #expect(refusedCursor.status == 410)
        #expect(((refusedCursor.body["error"] as? [String: Any])?["details"] as? [String: Any])?["reason"] as? String == "other_database")
        let again = try await get("\(server.url)/api/v1/sync/pull")
        #expect(again.status == 200)
        #expect((again.body["changes"] as? [Any])?.count == (before.body["changes"] as? [Any])?.count)

        // A target with data is refused, and left as it was; --force replaces it.
        let refused = try await OakBinary.run(["migrate", "--from", path, "--to", url], home: home, timeout: .seconds(60))
        #expect(refused.status == 3)
        #expect(refused.error.contains("already holds data; use --force"))
        #expect(try await OakBinary.run(["migrate", "--from", path, "--to", url, "--force"], home: home, timeout: .seconds(60)).status == 0)

        // And back into a new file: the same rows as the original.
        let back = home.appendingPathComponent("back.db").path
        let returned = try await OakBinary.run(["migrate", "--from", url, "--to", back], home: home, timeout: .seconds(60))
        #expect(returned.status == 0, "\(returned.error)")
        // The notes' log entries are found by row again (v13), as in the original.
        let queries = [
            "SELECT COUNT(*) FROM species_sources", "SELECT COUNT(*) FROM api_tokens", "SELECT MAX(seq) FROM change_log",
            "SELECT COUNT(note_row) FROM change_log",
        ]
        for query in queries {
            let original = try await DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: query) }
            let restored = try await DatabaseQueue(path: back).read { try Int.fetchOne($0, sql: query) }
            #expect(original == restored, "\(query)")
        }
    }

    @Test("migrate: a bad URL, a missing source file or the same database twice is a usage error that writes nothing")
    func refusals() async throws {
        let home = temporaryHome()
        let missing = try await OakBinary.run(["migrate", "--from", "/nonexistent/oak.db", "--to", home.appendingPathComponent("x.db").path], home: home)
        #expect(missing.status == 64)
        #expect(missing.error.contains("no database file at /nonexistent/oak.db"))
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("x.db").path))
        let (_, path) = try await starterDatabase()
        let same = try await OakBinary.run(["migrate", "--from", path, "--to", path], home: home)
        #expect(same.status == 64)
        let unreachable = try await OakBinary.run(["migrate", "--from", path, "--to", "postgres://oak@127.0.0.1:1/nowhere"], home: home)
        #expect(unreachable.status == 1)
        #expect(unreachable.error.contains("cannot open the target postgres://oak@127.0.0.1:1/nowhere"))
    }
}
