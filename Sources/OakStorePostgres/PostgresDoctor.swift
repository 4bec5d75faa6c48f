import Foundation
import Logging
import OakModels
import OakStore
import PostgresNIO

/// One check `oak doctor` makes: what it looked at, what it found, and when that is a problem, what to do.
public struct DoctorCheck: Sendable, Equatable {
    public var name: String
    public var passed: Bool
    public var finding: String
    public var fix: String?

    static func pass(_ name: String, _ finding: String) -> DoctorCheck {
        DoctorCheck(name: name, passed: true, finding: finding, fix: nil)
    }

    static func fail(_ name: String, _ finding: String, fix: String) -> DoctorCheck {
        DoctorCheck(name: name, passed: false, finding: finding, fix: fix)
    }
}

/// The checks of a PostgreSQL database `oak serve --database-url` would run on, made without changing anything
/// in it: the connection, the schema's migrations, the change log's counter, and the notification channel.
public enum PostgresDoctor {
    /// How long the notification channel may take to deliver the doctor's own notification.
    static let notificationWait = Duration.seconds(3)

    public static func diagnose(url: String, logger: Logger = Logger(label: "oak.postgres")) async -> [DoctorCheck] {
        let target: PostgresURL
        do {
            target = try PostgresURL(url)
        } catch {
            let reason = (error as? OakError).map { $0.fieldErrors.first?.message ?? $0.message } ?? "\(error)"
            return [.fail("url", reason, fix: "Write it as postgres://user:password@host:port/database[?sslmode=disable|prefer|require|verify-full]")]
        }
        let place = "\(target.host):\(target.port)/\(target.database) as \(target.user)"
        do {
            try await target.probe(logger: logger)
        } catch {
            return [
                .fail(
                    "connection", "cannot connect to \(place): \(reason(error))",
                    fix:
                        "Check that PostgreSQL runs and listens there, and the URL's user, password, database and sslmode (the database is created by `oak serve` when the user may create databases)"
                )
            ]
        }
        var configuration = target.clientConfiguration
        configuration.options.maximumConnections = 1
        do {
            return try await PostgresStore.withClient(configuration, logger: logger) { session in
                let version = try await session.text("SHOW server_version") ?? "(unknown version)"
                var checks: [DoctorCheck] = [.pass("connection", "PostgreSQL \(version) at \(place)")]
                let schema = try await schemaCheck(session)
                checks.append(schema)
                if schema.passed { checks.append(try await counterCheck(session)) }
                checks.append(await notificationCheck(session))
                return checks
            }
        } catch {
            return [.fail("connection", "connected to \(place), then: \(reason(error))", fix: "Run `oak doctor` again; if it persists, read PostgreSQL's log")]
        }
    }

    /// Every migration this version knows is applied, and none this version does not know.
    static func schemaCheck(_ session: PostgresSession) async throws -> DoctorCheck {
        let known = PostgresSchema.migrations.map(\.name)
        guard try await session.text("SELECT to_regclass('oak_migrations')::text") != nil else {
            return .fail(
                "schema", "no Oak Compendium schema in this database",
                fix: "Start `oak serve --database-url …` once: it creates the schema (or copy a database in with `oak migrate`)")
        }
        let applied = try await session.texts("SELECT name FROM oak_migrations ORDER BY name")
        let missing = known.filter { !applied.contains($0) }
        let unknown = applied.filter { !known.contains($0) }
        if !unknown.isEmpty {
            return .fail(
                "schema", "migrated by a newer oak: \(unknown.joined(separator: ", "))",
                fix: "Upgrade this oak to the version the servers run")
        }
        if !missing.isEmpty {
            return .fail(
                "schema", "\(missing.count) of \(known.count) migrations not applied: \(missing.joined(separator: ", "))",
                fix: "Start `oak serve --database-url …` of this version once: it applies them")
        }
        return .pass("schema", "all \(known.count) migrations applied (\(known.joined(separator: ", ")))")
    }

    /// The change log's counter is at or past every sequence number in the log: a counter behind it would give
    /// new changes numbers devices already hold, and their pulls would skip them.
    static func counterCheck(_ session: PostgresSession) async throws -> DoctorCheck {
        let counter = try await session.integer("SELECT seq FROM change_log_head")
        let newest = try await session.integer("SELECT COALESCE(MAX(seq), 0) FROM change_log") ?? 0
        guard let counter else {
            return .fail(
                "change log", "the counter row of change_log_head is missing",
                fix: "INSERT INTO change_log_head VALUES ((SELECT COALESCE(MAX(seq), 0) FROM change_log))")
        }
        guard counter >= newest else {
            return .fail(
                "change log", "the counter (\(counter)) is behind the newest change (\(newest))",
                fix: "With the servers stopped: UPDATE change_log_head SET seq = (SELECT MAX(seq) FROM change_log)")
        }
        return .pass("change log", "counter at \(counter), newest change \(newest)")
    }

    /// A notification sent on this connection comes back: LISTEN/NOTIFY works between the client and the
    /// database (a pooler in transaction mode, for one, does not pass them on).
    static func notificationCheck(_ session: PostgresSession) async -> DoctorCheck {
        let channel = "oak_doctor_\(UInt32.random(in: 0...UInt32.max))"
        let connection = session.connection
        let logger = session.logger
        let received: Bool
        do {
            received = try await connection.listen(on: channel) { notifications in
                try await connection.query(PostgresQuery(unsafeSQL: "NOTIFY \(channel), 'probe'"), logger: logger)
                return try await withThrowingTaskGroup(of: Bool.self) { group in
                    group.addTask {
                        for try await notification in notifications where notification.payload == "probe" { return true }
                        return false
                    }
                    group.addTask {
                        try await Task.sleep(for: notificationWait)
                        return false
                    }
                    let first = try await group.next() ?? false
                    group.cancelAll()
                    return first
                }
            }
        } catch {
            return .fail("notifications", "LISTEN/NOTIFY failed: \(reason(error))", fix: notificationFix)
        }
        guard received else {
            return .fail("notifications", "a notification did not come back within \(notificationWait)", fix: notificationFix)
        }
        return .pass("notifications", "LISTEN/NOTIFY delivers")
    }

    /// Why a call failed, in PostgreSQL's words or the network's.
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            return error.serverInfo?[.message] ?? error.underlying.map { "\($0)" } ?? "\(error.code)"
        }
        return (error as? OakError)?.message ?? "\(error)"
    }

    static let notificationFix =
        "Connect to PostgreSQL directly, or through a pooler in session mode (PgBouncer's transaction mode does not pass notifications on)"
}
