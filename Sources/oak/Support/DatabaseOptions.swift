import ArgumentParser
import Foundation
import Logging
import OakCLI
import OakModels
import OakStore
import OakStoreKit
import OakStorePostgres
import OakStoreSQLite

/// `--db`: the SQLite file `oak serve` works on, created (with the starter dataset) when new; or
/// `--database-url`: a PostgreSQL database that several servers share.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: [.customLong("db"), .customShort("d"), .customLong("database")],
        help: "SQLite database file (env OAK_DB or OAK_DB_PATH; default ./oak_compendium.db).")
    var db: String?

    @Option(
        name: .customLong("database-url"),
        help: "PostgreSQL database instead of a file: postgres://user:password@host:port/database[?sslmode=…] (env DATABASE_URL).")
    var databaseURL: String?

    var path: String { db ?? Target.defaultDatabasePath(environment: ProcessInfo.processInfo.environment) }

    /// The PostgreSQL URL in effect: `--database-url`, else `DATABASE_URL` unless `--db` names a file.
    func postgresURL() throws -> String? {
        if databaseURL != nil, db != nil { throw ValidationError("Give --db or --database-url, not both") }
        if let databaseURL { return databaseURL }
        guard db == nil, let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty else { return nil }
        return url
    }

    /// What a server names as its database: the file, or the URL without its password.
    func describe() throws -> String {
        try postgresURL().map(PostgresURL.redacted) ?? path
    }

    /// Opens the database the options name, SQLite or PostgreSQL (with a pool of `pool`'s settings), creating
    /// and migrating it if needed: a store to serve, with the capabilities its backend has (SQLite's backups).
    func openStore(pool: PostgresPoolSettings = PostgresPoolSettings()) async throws -> any ServedStore {
        guard let url = try postgresURL() else { return try open() }
        do {
            _ = try PostgresURL(url)
        } catch let error as OakError {
            throw ValidationError(error.fieldErrors.first.map { "--\($0.field) \($0.message)" } ?? error.message)
        }
        var logger = Logger(label: "oak.postgres")
        // The pool's own notes (retries, a lease before it runs) are noise for a command-line user.
        logger.logLevel = .error
        do {
            return try await PostgresStore.connect(url: url, pool: pool, logger: logger)
        } catch {
            OutputStream.standardError.line("error: cannot open the PostgreSQL database at \(PostgresURL.redacted(url)): \(CLIError(error).description)")
            throw ExitCode.failure
        }
    }

    /// Opens (creating and migrating if needed) the database.
    func open() throws -> SQLiteStore {
        do {
            return try SQLiteStore(path: path)
        } catch {
            throw ValidationError("Cannot open the database at \(path): \(error)")
        }
    }
}

/// The database of a maintenance command (`token`, `backup`): it must exist unless `--create` is given,
/// so a command run in the wrong folder does not quietly make a database the running server never sees.
struct ExistingDatabaseOptions: ParsableArguments {
    @OptionGroup var location: DatabaseOptions

    @Flag(help: "Create the database file (with the starter dataset, as oak serve would) if it does not exist.")
    var create = false

    @Flag(name: .shortAndLong, help: "Name the database used, on stderr.")
    var verbose = false

    var path: String { location.path }

    func open() async throws -> SQLiteStore {
        if try location.postgresURL() != nil {
            throw ValidationError("This command works on a SQLite file; a PostgreSQL database is backed up with pg_dump")
        }
        try await reportingFailures { try Target.requireDatabase(at: path, create: create, option: "--db") }
        if verbose { OutputStream.standardError.line("Using the database \(path)") }
        return try location.open()
    }

    /// The store the options name, SQLite (which must exist unless `--create`) or PostgreSQL.
    func openStore() async throws -> any CompendiumStore {
        guard try location.postgresURL() != nil else { return try await open() }
        if verbose { OutputStream.standardError.line("Using the database \(try location.describe())") }
        return try await location.openStore()
    }
}
