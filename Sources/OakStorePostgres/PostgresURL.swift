import Foundation
import Logging
import NIOSSL
import OakModels
import PostgresNIO

/// Reads a connection URL as libpq does: `postgres://user:password@host:port/database?sslmode=mode`.
/// `sslmode` is `disable`, `prefer` (the default: TLS when the server offers it), `require` (TLS, the
/// certificate not checked, as libpq's `require`) or `verify-full` (TLS with the certificate checked).
package enum PostgresURL {
    package static func configuration(from text: String) throws -> PostgresClient.Configuration {
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
        let mode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        let tls: PostgresClient.Configuration.TLS
        var unchecked = TLSConfiguration.makeClientConfiguration()
        unchecked.certificateVerification = .none
        switch mode {
        case "disable": tls = .disable
        case "prefer", "allow": tls = .prefer(unchecked)
        case "require": tls = .require(unchecked)
        case "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
        default: throw refuse("has an unknown sslmode '\(mode)'")
        }
        return PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user.removingPercentEncoding ?? user,
            password: components.password.map { $0.removingPercentEncoding ?? $0 }, database: database.removingPercentEncoding ?? database,
            tls: tls)
    }

    /// The URL without its password, for logs and messages.
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
        var configuration = try PostgresURL.configuration(from: url)
        guard let name = configuration.database else { return false }
        configuration.database = "postgres"
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
