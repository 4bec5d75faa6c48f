import ArgumentParser
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import OakCLI
import OakServer
import OakStore
import OakStorePostgres

/// `oak serve`: runs the HTTP API on a SQLite database file, or on a PostgreSQL database several servers share.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the API server.",
        discussion: """
            Opens (or creates) the database, migrates it forward in place, and serves /api/v1. \
            A new database gets the standard sources and a starter dataset of oak species. \
            With --database-url (or DATABASE_URL) it serves a PostgreSQL database instead of a file; any number \
            of servers may share it (see README, Deploying). \
            Writes need the owner key: OAK_API_KEY, or ~/.oak/api_key (created on first start). \
            Stop with Ctrl-C or SIGTERM; in-flight requests finish first.
            """
    )

    @Option(help: "Port to listen on (env OAK_PORT).")
    var port: Int?

    @Option(help: "Address to bind (env OAK_HOST; default 127.0.0.1); use 0.0.0.0 in a container.")
    var host: String?

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Replace the key in ~/.oak/api_key with a new one and print it.")
    var regenerateKey = false

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    @Option(help: "Days to keep delete tombstones for sync; clients whose cursor is older must resync.")
    var tombstoneRetentionDays: Int = 90

    @Option(help: "Reads per second per client IP.")
    var rateLimitReads = 10

    @Option(help: "Writes per second per client IP.")
    var rateLimitWrites = 5

    @Option(help: "Backups per minute per client IP.")
    var rateLimitBackups = 1

    @Flag(help: "Turn rate limiting off.")
    var noRateLimit = false

    @Flag(help: "Serve the JSON API only, without the compendium's web pages.")
    var noWeb = false

    @Flag(
        help:
            "Take the client IP from Fly-Client-IP / X-Forwarded-For, and mark the pages' session cookie Secure when X-Forwarded-Proto is https; only behind a proxy you trust (env OAK_TRUST_PROXY=true)."
    )
    var trustProxy = false

    @Option(
        name: .customLong("cors-origin"),
        help: "An origin allowed cross-origin access (repeatable; 'http://localhost:*' matches any port). Replaces the defaults.")
    var corsOrigins: [String] = []

    @Option(help: "Largest request body in bytes.")
    var maxBodySize = ServerConfiguration.defaultMaxBodySize

    @Option(help: "Directory for backups (POST /api/v1/backup and the daily backup).")
    var backupDir = "./backups"

    @Option(help: "How many backups to keep.")
    var backupKeep = 7

    @Flag(help: "Do not write a backup every day.")
    var noDailyBackup = false

    @Option(help: "Seconds before a connection with no request in progress is closed.")
    var idleTimeout = 30

    @Option(help: "Seconds a whole request (headers and body) may take to arrive; a slower one gets 408 and the connection is closed.")
    var requestTimeout = 30

    @Option(help: "Most connections open at once (default 4096, and never more than the open-file limit allows).")
    var maxConnections: Int?

    @Option(help: "PostgreSQL only: most connections in the pool.")
    var databasePoolSize = PostgresPoolSettings().maxConnections

    @Option(help: "PostgreSQL only: seconds a request waits for a database connection (all busy, or the database away) before its 503.")
    var databaseWait = PostgresPoolSettings().connectionWait.inSeconds

    @Option(help: "PostgreSQL only: seconds a statement may run before PostgreSQL cancels it (answered 503).")
    var statementTimeout = PostgresPoolSettings().statementTimeout.inSeconds

    func run() async throws {
        tuneMalloc()
        let fileLimit = raiseFileDescriptorLimit()
        let environment = ProcessInfo.processInfo.environment
        let port = try resolvedPort(environment)
        let host = host ?? environment["OAK_HOST"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        let trustProxy = try trustProxy || Self.flag(environment, "OAK_TRUST_PROXY")
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level must be one of: \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        for (value, name) in [
            (tombstoneRetentionDays, "--tombstone-retention-days"), (rateLimitReads, "--rate-limit-reads"),
            (rateLimitWrites, "--rate-limit-writes"), (rateLimitBackups, "--rate-limit-backups"),
            (maxBodySize, "--max-body-size"), (backupKeep, "--backup-keep"), (idleTimeout, "--idle-timeout"),
            (requestTimeout, "--request-timeout"), (maxConnections ?? 1, "--max-connections"),
            (databasePoolSize, "--database-pool-size"),
        ] where value < 1 {
            throw ValidationError("\(name) must be at least 1")
        }
        for (value, name) in [(databaseWait, "--database-wait"), (statementTimeout, "--statement-timeout")] where !(value >= 0.001) {
            throw ValidationError("\(name) must be a positive number of seconds")
        }
        try await checkAddressFree(host: host, port: port)
        let described = try database.describe()
        let pool = PostgresPoolSettings(
            maxConnections: databasePoolSize, connectionWait: .milliseconds(Int64(databaseWait * 1000)),
            statementTimeout: .milliseconds(Int64(statementTimeout * 1000)))
        let store = try await database.openStore(pool: pool)
        if let summary = try await store.startupSummary() { say(summary) }
        let key = try OwnerKey.resolve(environment: environment, regenerate: regenerateKey)
        switch key.origin {
        case .environment: say("Owner key: from OAK_API_KEY")
        case .file(let file): say("Owner key: from \(file)")
        case .generated(let file):
            say("Owner key (shown once, saved to \(file) with mode 0600):\n  \(key.value)")
        }
        say("Serving \(described) on http://\(host):\(port)/api/v1")
        if !noWeb { say("Pages for browsers: http://\(host):\(port)/") }
        let app = buildApplication(
            configuration: ServerConfiguration(
                host: host, port: port, ownerKey: key.value, logLevel: level,
                tombstoneRetention: .seconds(tombstoneRetentionDays * 86_400),
                rateLimits: noRateLimit
                    ? nil
                    : RateLimits(readsPerSecond: rateLimitReads, writesPerSecond: rateLimitWrites, backupsPerMinute: rateLimitBackups),
                trustProxy: trustProxy,
                corsOrigins: corsOrigins.isEmpty ? ServerConfiguration.defaultCORSOrigins : corsOrigins,
                maxBodySize: maxBodySize,
                backups: BackupSettings(directory: backupDir, keep: backupKeep, daily: !noDailyBackup),
                idleTimeout: .seconds(idleTimeout), requestTimeout: .seconds(requestTimeout),
                maxConnections: maxConnections ?? Self.defaultConnectionCap(fileLimit: fileLimit), web: !noWeb),
            store: store)
        try await app.runService()
    }

    /// The default cap: 4,096 connections, lowered to leave 64 descriptors free (database, WAL, backups, logs)
    /// under the open-file limit, so accepting never fails for lack of descriptors.
    private static func defaultConnectionCap(fileLimit: UInt64?) -> Int {
        guard let fileLimit else { return ServerConfiguration.defaultMaxConnections }
        return max(1, min(ServerConfiguration.defaultMaxConnections, Int(clamping: fileLimit) - 64))
    }

    /// Fails with one clear line when the address is taken (another server on the port), before the
    /// database is opened or anything is started.
    private func checkAddressFree(host: String, port: Int) async throws {
        do {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: host, port: port).get()
            try await channel.close()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            OutputStream.standardError.line("error: \(host):\(port) is already in use (another oak serve?); choose another port with --port or OAK_PORT")
            throw ExitCode.failure
        } catch {
            OutputStream.standardError.line("error: cannot listen on \(host):\(port): \(error)")
            throw ExitCode.failure
        }
    }

    /// A yes-or-no environment variable: unset or empty is no; anything but the usual spellings is refused.
    private static func flag(_ environment: [String: String], _ name: String) throws -> Bool {
        switch environment[name]?.lowercased() {
        case nil, "", "0", "false", "no", "off": return false
        case "1", "true", "yes", "on": return true
        case let other?: throw ValidationError("\(name) must be true or false, not '\(other)'")
        }
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
