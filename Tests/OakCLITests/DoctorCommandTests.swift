import Foundation
import OakStorePostgres
import OakTestSupport
import Testing

/// `oak doctor --database-url`, run as the built binary against real PostgreSQL databases.
@Suite(
    "oak doctor", .needsPostgres)
struct DoctorCommandTests {
    @Test(
        "doctor: a database oak serve runs on passes every check (exit 0); an empty one, a counter behind the log and an unreachable server are each named with the fix (exit 1)"
    )
    func doctorNamesEachProblem() async throws {
        let home = temporaryHome()
        let url = try await temporaryPostgresDatabase()

        // An empty database: no schema yet, and starting oak serve is the fix.
        let empty = try await OakBinary.run(["doctor", "--database-url", url], home: home)
        #expect(empty.status == 1)
        #expect(empty.output.contains("ok  connection: PostgreSQL "))
        #expect(empty.output.contains("BAD schema: no Oak Compendium schema in this database"))
        #expect(empty.output.contains("fix: Start `oak serve --database-url …` once"))

        // Once a server has opened it, every check passes.
        let store = try await PostgresStore(url: url)
        store.close()
        let healthy = try await OakBinary.run(["doctor"], home: home, environment: ["DATABASE_URL": url])
        #expect(healthy.status == 0, "\(healthy.output)")
        for line in ["ok  schema: all ", "ok  change log: counter at ", "ok  notifications: LISTEN/NOTIFY delivers", "Every check passed"] {
            #expect(healthy.output.contains(line), "\(healthy.output)")
        }

        // A counter set back behind the log (a hand-made restore gone wrong) is found, with the statement that mends it.
        try await postgresExecute(url: url, "UPDATE change_log_head SET seq = 0")
        let behind = try await OakBinary.run(["doctor", "--database-url", url], home: home)
        #expect(behind.status == 1)
        #expect(behind.output.contains("BAD change log: the counter (0) is behind the newest change"))
        #expect(behind.output.contains("UPDATE change_log_head SET seq = (SELECT MAX(seq) FROM change_log)"))

        // Nothing listening: the connection check says so, and what to look at.
        let port = try ServerSocket.freePort()
        let away = try await OakBinary.run(["doctor", "--database-url", "postgres://oak@127.0.0.1:\(port)/oak?sslmode=disable"], home: home)
        #expect(away.status == 1)
        #expect(away.output.contains("BAD connection: cannot connect to 127.0.0.1:\(port)/oak as oak"))
        #expect(away.output.contains("fix: Check that PostgreSQL runs and listens there"))

        // No database named at all: a usage error.
        let none = try await OakBinary.run(["doctor"], home: home)
        #expect(none.status == 64)
        #expect(none.error.contains("--database-url"))
    }
}
