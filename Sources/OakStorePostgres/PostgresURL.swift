import Foundation
import Logging
import NIOPosix
import NIOSSL
import OakModels
import PostgresNIO

/// A connection URL read as libpq reads it: `postgres://user:password@host:port/database?sslmode=mode`.
/// `sslmode` is `disable`, `prefer` (the default: TLS when the server offers it), `require` (TLS, the
/// certificate not checked, as libpq's `require`) or `verify-full` (TLS with the certificate checked).
package struct PostgresURL: Sendable {
    package var host: String
    package var port: Int
    package var user: String
    package var password: String?
    package var database: String
    package var sslMode: String

    package init(_ text: String) throws {
        func refuse(_ reason: String) -> OakError {
            OakError.invalid("database-url", "\(reason) (expected postgres://user:password@host:port/database)")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            ["postgres", "postgresql"].contains(scheme.lowercased())
        else { throw refuse("is not a postgres:// URL") }
        guard let host = components.host, !host.isEmpty else { throw refuse("names no host") }
        guard let user = components.user, !user.isEmpty else { throw refuse("names no user") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty else { throw refuse("names no database") }
        sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        guard ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"].contains(sslMode) else {
            throw refuse("has an unknown sslmode '\(sslMode)'")
        }
        self.host = host
        port = components.port ?? 5432
        self.user = user.removingPercentEncoding ?? user
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.removingPercentEncoding ?? database
    }

    /// TLS as `sslmode` asks: certificates are checked only for `verify-ca` and `verify-full`.
    private var tls: TLSConfiguration? {
        switch sslMode {
        case "disable": return nil
        case "verify-ca", "verify-full": return .makeClientConfiguration()
        default:
            var unchecked = TLSConfiguration.makeClientConfiguration()
            unchecked.certificateVerification = .none
            return unchecked
        }
    }

    private var requiresTLS: Bool { !["disable", "allow", "prefer"].contains(sslMode) }

    /// The configuration of a pool of connections.
    package var clientConfiguration: PostgresClient.Configuration {
        let mode: PostgresClient.Configuration.TLS = tls.map { requiresTLS ? .require($0) : .prefer($0) } ?? .disable
        return PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: mode)
    }

    /// The configuration of one connection outside the pool, named `applicationName` in `pg_stat_activity`.
    package func connectionConfiguration(applicationName: String? = nil) throws -> PostgresConnection.Configuration {
        var mode = PostgresConnection.Configuration.TLS.disable
        if let tls {
            let context = try NIOSSLContext(configuration: tls)
            mode = requiresTLS ? .require(context) : .prefer(context)
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: mode)
        if let applicationName { configuration.options.additionalStartupParameters.append(("application_name", applicationName)) }
        return configuration
    }

    /// Connects once and closes, to find why the database cannot be reached (the pool only retries).
    package func probe(logger: Logger) async throws {
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: try connectionConfiguration(), id: 0, logger: logger
        ).get()
        try await connection.close().get()
    }

    /// A URL without its password, for logs and messages.
    package static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? text
    }
}

extension PostgresStore {
    /// Creates the database a URL names when it does not exist yet, connecting to the server's `postgres`
    /// database as the URL's user (who needs the CREATEDB privilege). Answers whether it created it.
    @discardableResult
    public static func createDatabaseIfMissing(url: String, logger: Logger = Logger(label: "oak.postgres")) async throws -> Bool {
        var target = try PostgresURL(url)
        let name = target.database
        target.database = "postgres"
        var configuration = target.clientConfiguration
        configuration.options.maximumConnections = 1
        return try await withClient(configuration, logger: logger) { session in
            guard try await session.row("SELECT 1 FROM pg_database WHERE datname = $1", [.text(name)]) == nil else { return false }
            try await session.execute("CREATE DATABASE \"\(name.replacingOccurrences(of: "\"", with: "\"\""))\"")
            return true
        }
    }

    /// Runs `body` on a connection of a client of its own, closed afterwards.
    package static func withClient<T: Sendable>(
        _ configuration: PostgresClient.Configuration, logger: Logger, _ body: @Sendable (PostgresSession) async throws -> T
    ) async throws -> T {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        // Detached: a client run inside a service (a running server's task) would otherwise wait for that
        // service's graceful shutdown instead of ending when cancelled.
        let runner = Task.detached { await client.run() }
        defer { runner.cancel() }
        do {
            return try await client.withConnection { connection in try await body(PostgresSession(connection: connection, logger: logger)) }
        } catch {
            throw describe(error)
        }
    }
}
