import ArgumentParser
import Foundation
import OakStore

/// `--db`: the SQLite file every local command works on.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "SQLite database file (env OAK_DB_PATH; default ./oak_compendium.db).")
    var db: String?

    var path: String { db ?? ProcessInfo.processInfo.environment["OAK_DB_PATH"] ?? "./oak_compendium.db" }

    /// Opens (creating and migrating if needed) the database.
    func open() throws -> SQLiteStore {
        do {
            return try SQLiteStore(path: path)
        } catch {
            throw ValidationError("Cannot open the database at \(path): \(error)")
        }
    }
}
