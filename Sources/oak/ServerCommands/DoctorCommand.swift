import ArgumentParser
import Foundation
import Logging
import OakCLI
import OakStorePostgres

/// `oak doctor`: checks the PostgreSQL database servers would run on, changing nothing, and says what to fix.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check a PostgreSQL database for oak serve, and say what to fix.",
        discussion: """
            Checks, without changing anything: the connection (and the server's version), the schema's \
            migrations, the change log's counter, and that LISTEN/NOTIFY notifications come back. Prints one \
            line per check and, for each problem, what to do. Exits 0 when every check passes, 1 otherwise.
            """
    )

    @Option(name: .customLong("database-url"), help: "The PostgreSQL database: postgres://user:password@host:port/database (env DATABASE_URL).")
    var databaseURL: String?

    func run() async throws {
        guard let url = databaseURL ?? ProcessInfo.processInfo.environment["DATABASE_URL"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            throw ValidationError("Give the database to check: --database-url postgres://user:password@host:port/database (or DATABASE_URL)")
        }
        var logger = Logger(label: "oak.postgres")
        logger.logLevel = .critical
        say("Checking \(PostgresURL.redacted(url))")
        let checks = await PostgresDoctor.diagnose(url: url, logger: logger)
        for check in checks {
            say("\(check.passed ? "ok " : "BAD") \(check.name): \(check.finding)")
            if let fix = check.fix { say("    fix: \(fix)") }
        }
        guard checks.allSatisfy(\.passed) else {
            say("\(checks.filter { !$0.passed }.count) problem(s) found")
            throw ExitCode.failure
        }
        say("Every check passed")
    }
}
