import ArgumentParser
import Foundation
import Logging
import OakCLI
import OakModels
import OakStore
import OakStoreKit
import OakStorePostgres
import OakStoreSQLite

/// `oak migrate --from FILE.db --to postgres://…`: copies a whole database between the two backends.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy a whole database from a SQLite file into PostgreSQL, or back.",
        discussion: """
            Copies every species, taxon, source, source row and note, the API tokens, and the sync state: the \
            change log keeps its sequence numbers and the database its identity, so devices go on syncing from \
            where they were without starting over. Each table is then read back, and its row count and a SHA-256 \
            of its rows compared with the source's.

            Stop the servers of both databases first. A SQLite source is brought to the current schema in place, \
            as oak serve would; a PostgreSQL target that does not exist is created. A target that already holds \
            data (more than a new database's standard sources) is refused unless --force, which replaces it.

            Examples:
              oak migrate --from oak_compendium.db --to postgres://oak@db.example.org/oak
              oak migrate --from postgres://oak@db.example.org/oak --to restored.db
            """
    )

    @Option(help: "The database to copy: a SQLite file, or a postgres:// URL.")
    var from: String

    @Option(help: "The database to copy into: a SQLite file (created if missing), or a postgres:// URL.")
    var to: String

    @Flag(help: "Replace whatever the target holds.")
    var force = false

    func run() async throws {
        guard from != to else { throw ValidationError("--from and --to name the same database") }
        if !Self.isURL(from), !FileManager.default.fileExists(atPath: from) {
            throw ValidationError("--from: no database file at \(from)")
        }
        try await reportingFailures {
            let started = ContinuousClock.now
            let source = try await Self.open(from, role: "source")
            let target = try await Self.open(to, role: "target")
            if try await target.holdsData(), !force {
                throw CLIError.conflict("The target \(Self.describe(to)) already holds data; use --force to replace it")
            }
            let errors = OutputStream.standardError
            let interactive = isatty(STDERR_FILENO) == 1

            var rows: [String: [[StoredValue]]] = [:]
            let reading = ProgressBar("Reading", stream: errors, enabled: interactive)
            for (index, table) in CopiedTable.all.enumerated() {
                rows[table.name] = try await source.rows(of: table)
                reading.update(done: index + 1, total: CopiedTable.all.count)
            }
            rows = CopiedTable.markedAsCopy(rows)
            let total = rows.values.reduce(0) { $0 + $1.count }
            let writing = ProgressBar("Writing", stream: errors, enabled: interactive)
            try await target.replaceAll(with: rows, head: try await source.changeLogHead()) { done in writing.update(done: done, total: total) }

            var report = Table("TABLE", "ROWS", "SHA-256", "")
            var mismatched: [String] = []
            for table in CopiedTable.all {
                let copied = try await target.rows(of: table)
                let expected = rows[table.name] ?? []
                let (sourceSum, targetSum) = (CopiedTable.checksum(of: expected), CopiedTable.checksum(of: copied))
                let same = copied.count == expected.count && sourceSum == targetSum
                if !same { mismatched.append(table.name) }
                report.add(
                    table.name, String(copied.count), String(targetSum.prefix(16)),
                    same ? "ok" : "DIFFERS (source: \(expected.count) rows, \(sourceSum.prefix(16)))")
            }
            say(report.text)
            guard mismatched.isEmpty else {
                throw CLIError.failure("The copy differs from the source in \(mismatched.joined(separator: ", ")); the target is not to be used")
            }
            let elapsed = (ContinuousClock.now - started).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            say("Copied \(total) rows from \(Self.describe(from)) to \(Self.describe(to)) in \(String(format: "%.1f", seconds)) s; every table verified.")
        }
    }

    private static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    private static func describe(_ location: String) -> String {
        isURL(location) ? PostgresURL.redacted(location) : location
    }

    /// Opens one side, migrated to the current schema, without the starter dataset.
    private static func open(_ location: String, role: String) async throws -> any CopyEndpoint {
        guard isURL(location) else { return try SQLiteStore(path: location, seedStarterData: false) }
        var logger = Logger(label: "oak.postgres")
        logger.logLevel = .error
        do {
            return try await PostgresStore.connect(url: location, seedStarterData: false, logger: logger)
        } catch {
            throw CLIError.failure("cannot open the \(role) \(describe(location)): \(CLIError(error).description)")
        }
    }
}
