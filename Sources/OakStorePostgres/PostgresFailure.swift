import Foundation
import OakModels
import PostgresNIO

/// The ways a database call fails that are not the request's fault and pass: the database is away or
/// restarting, out of connections, too slow, or aborted a transaction to be run again. Each is answered 503
/// (with `Retry-After`) and counted by kind in `/metrics`; a client sends the same request again.
public enum PostgresFailure: String, CaseIterable, Sendable {
    /// No connection within the pool's wait, or the connection was lost (the database stopped, crashed or
    /// restarts): the database cannot be reached now.
    case unavailable = "database_unavailable"
    /// The database refuses new connections: too many, or still starting up or shutting down.
    case refused = "database_refused"
    /// A statement ran past the statement timeout, and PostgreSQL cancelled it.
    case timedOut = "database_timeout"
    /// A serialization failure or a deadlock: the transaction changed nothing, and is run again
    /// (`PostgresStore.write`) before this is answered.
    case retryable = "database_retry"

    /// How many times a write transaction aborted as `retryable` is run again.
    static let retries = 3

    /// The failure a PostgresNIO error is, if any.
    package init?(code: PSQLError.Code, sqlState: String?) {
        switch code {
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .poolClosed:
            self = .unavailable
            return
        default: break
        }
        guard let sqlState else { return nil }
        switch sqlState {
        case "40001", "40P01": self = .retryable  // serialization_failure, deadlock_detected
        case "57014": self = .timedOut  // query_canceled (the statement timeout)
        case "53300", "57P03": self = .refused  // too_many_connections, cannot_connect_now
        case "57P01", "57P02": self = .unavailable  // admin_shutdown, crash_shutdown
        default:
            // Class 08: connection exceptions.
            guard sqlState.hasPrefix("08") else { return nil }
            self = .unavailable
        }
    }

    /// The failure an error was answered as (`error(_:)`, named in `details.reason`), if any.
    init?(answered error: any Error) {
        guard case .string(let reason)? = (error as? OakError)?.details?["reason"] else { return nil }
        self.init(rawValue: reason)
    }

    var message: String {
        switch self {
        case .unavailable: "The database connection was lost (PostgreSQL stopped or restarts); try again shortly"
        case .refused: "PostgreSQL refuses connections now (too many, or starting up); try again shortly"
        case .timedOut: "The database took longer than the statement timeout; try again shortly"
        case .retryable: "The database aborted the transaction again and again under concurrent writes; try again shortly"
        }
    }

    /// The 503 a failure is answered with; `details.reason` names the failure.
    package func error(_ message: String) -> OakError {
        OakError(.serviceUnavailable, message, details: ["reason": .string(rawValue)])
    }
}

/// The connection pool of `oak serve --database-url`: its size, how long a request waits for a connection,
/// and how long a statement may run.
public struct PostgresPoolSettings: Sendable, Equatable {
    /// The most connections the pool opens.
    public var maxConnections: Int
    /// How long a call waits for a pooled connection (every connection busy, or the database away) before it
    /// is answered 503; also the limit on opening a connection.
    public var connectionWait: Duration
    /// How long a statement may run before PostgreSQL cancels it (answered 503).
    public var statementTimeout: Duration

    public init(maxConnections: Int = 20, connectionWait: Duration = .seconds(3), statementTimeout: Duration = .seconds(30)) {
        self.maxConnections = maxConnections
        self.connectionWait = connectionWait
        self.statementTimeout = statementTimeout
    }

    /// A client configuration with these settings.
    public func configure(_ configuration: PostgresClient.Configuration) -> PostgresClient.Configuration {
        var configuration = configuration
        configuration.options.maximumConnections = maxConnections
        configuration.options.connectTimeout = connectionWait
        let milliseconds = statementTimeout.components.seconds * 1000 + statementTimeout.components.attoseconds / 1_000_000_000_000_000
        configuration.options.additionalStartupParameters.append(("statement_timeout", String(milliseconds)))
        return configuration
    }
}
