import ArgumentParser
import Foundation
import Hummingbird
import Logging
import OakServer
import OakStore

/// `oak serve`: runs the HTTP API on a SQLite database file.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the API server.",
        discussion: """
            Opens (or creates) the database, migrates it forward in place, and serves /api/v1.
            A new database gets the standard sources and a starter dataset of oak species.
            Writes need the owner key: OAK_API_KEY, or ~/.oak/api_key (created on first start).
            Stop with Ctrl-C or SIGTERM; in-flight requests finish first.
            """
    )

    @Option(help: "Port to listen on (env OAK_PORT).")
    var port: Int?

    @Option(help: "Address to bind; use 0.0.0.0 in a container.")
    var host: String = "127.0.0.1"

    @Option(help: "SQLite database file (env OAK_DB_PATH).")
    var db: String?

    @Flag(help: "Replace the key in ~/.oak/api_key with a new one and print it.")
    var regenerateKey = false

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    @Option(help: "Days to keep delete tombstones for sync; clients whose cursor is older must resync.")
    var tombstoneRetentionDays: Int = 90

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let port = try resolvedPort(environment)
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level must be one of: \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard tombstoneRetentionDays >= 1 else { throw ValidationError("--tombstone-retention-days must be at least 1") }
        let path = db ?? environment["OAK_DB_PATH"] ?? "./oak_compendium.db"
        let store: SQLiteStore
        do {
            store = try SQLiteStore(path: path)
        } catch {
            throw ValidationError("Cannot open the database at \(path): \(error)")
        }
        let key = try OwnerKey.resolve(environment: environment, regenerate: regenerateKey)
        switch key.origin {
        case .environment: say("Owner key: from OAK_API_KEY")
        case .file(let file): say("Owner key: from \(file)")
        case .generated(let file):
            say("Owner key (shown once, saved to \(file) with mode 0600):\n  \(key.value)")
        }
        say("Serving \(path) on http://\(host):\(port)/api/v1")
        let app = buildApplication(
            configuration: ServerConfiguration(
                host: host, port: port, ownerKey: key.value, logLevel: level,
                tombstoneRetention: .seconds(tombstoneRetentionDays * 86_400)),
            store: store)
        try await app.runService()
    }

    private func resolvedPort(_ environment: [String: String]) throws -> Int {
        if let port {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
            return port
        }
        guard let text = environment["OAK_PORT"] else { return 8080 }
        guard let value = Int(text), (0...65535).contains(value) else {
            throw ValidationError("OAK_PORT must be a port number, not '\(text)'")
        }
        return value
    }
}
