import ArgumentParser
import Foundation
import OakCLI
import OakStore
import OakStoreSQLite

/// `--db`: the SQLite file `oak serve` works on, created (with the starter dataset) when new.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: [.customLong("db"), .customShort("d"), .customLong("database")],
        help: "SQLite database file (env OAK_DB or OAK_DB_PATH; default ./oak_compendium.db).")
    var db: String?

    var path: String { db ?? Target.defaultDatabasePath(environment: ProcessInfo.processInfo.environment) }

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
        try await reportingFailures { try Target.requireDatabase(at: path, create: create, option: "--db") }
        if verbose { FileHandle.standardError.write(Data("Using the database \(path)\n".utf8)) }
        return try location.open()
    }
}
