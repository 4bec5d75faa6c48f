import Foundation
import Logging

/// What `oak serve` needs to know to run.
public struct ServerConfiguration: Sendable {
    /// The `Server` field of every response.
    static let serverName = "oak"

    public var host: String
    public var port: Int
    /// The owner key: it has every ability.
    public var ownerKey: String
    public var logLevel: Logger.Level
    /// How long delete tombstones (and push receipts) are kept; a cursor older than that answers 410.
    public var tombstoneRetention: Duration
    /// Per-client-IP limits; nil turns rate limiting off.
    public var rateLimits: RateLimits?
    /// Take the client IP from `Fly-Client-IP` / `X-Forwarded-For` (only behind a proxy you trust).
    public var trustProxy: Bool
    /// Origins allowed cross-origin access; `http://localhost:*` matches any port.
    public var corsOrigins: [String]
    /// The largest request body accepted.
    public var maxBodySize: Int
    /// Where backups go and how many are kept.
    public var backups: BackupSettings
    /// How long a connection with no request in progress is kept open.
    public var idleTimeout: Duration
    /// How long a whole request (headers and body) may take to arrive, from its first byte; then 408.
    public var requestTimeout: Duration
    /// The most connections open at once; past it new ones wait in the listen backlog.
    public var maxConnections: Int
    /// How long the export document stays in memory after the last request for it (`IdleExportRelease`).
    public var exportIdleRelease: Duration
    /// Whether the server answers browsers with the compendium's pages (`WebController`); the JSON API is the same
    /// either way.
    public var web: Bool

    public static let defaultCORSOrigins = ["https://oakcompendium.org", "https://oakcompendium.com", "http://localhost:*"]
    public static let defaultMaxBodySize = 1 << 20
    public static let defaultMaxConnections = 4096

    public init(
        host: String = "127.0.0.1", port: Int = 8080, ownerKey: String, logLevel: Logger.Level = .info,
        tombstoneRetention: Duration = .seconds(90 * 86_400), rateLimits: RateLimits? = RateLimits(), trustProxy: Bool = false,
        corsOrigins: [String] = defaultCORSOrigins, maxBodySize: Int = defaultMaxBodySize,
        backups: BackupSettings = BackupSettings(), idleTimeout: Duration = .seconds(30), requestTimeout: Duration = .seconds(30),
        maxConnections: Int = defaultMaxConnections, exportIdleRelease: Duration = .seconds(15), web: Bool = true
    ) {
        self.host = host
        self.port = port
        self.ownerKey = ownerKey
        self.logLevel = logLevel
        self.tombstoneRetention = tombstoneRetention
        self.rateLimits = rateLimits
        self.trustProxy = trustProxy
        self.corsOrigins = corsOrigins
        self.maxBodySize = maxBodySize
        self.backups = backups
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        self.maxConnections = maxConnections
        self.exportIdleRelease = exportIdleRelease
        self.web = web
    }
}

/// Token-bucket sizes per client IP.
public struct RateLimits: Sendable, Equatable {
    public var readsPerSecond: Int
    public var writesPerSecond: Int
    public var backupsPerMinute: Int
    /// The most clients tracked at once; idle ones are evicted first.
    public var maxClients: Int

    public init(readsPerSecond: Int = 10, writesPerSecond: Int = 5, backupsPerMinute: Int = 1, maxClients: Int = 10_000) {
        self.readsPerSecond = readsPerSecond
        self.writesPerSecond = writesPerSecond
        self.backupsPerMinute = backupsPerMinute
        self.maxClients = maxClients
    }
}

/// Backups: the directory, how many to keep, and whether one is taken daily.
public struct BackupSettings: Sendable, Equatable {
    public var directory: String
    public var keep: Int
    public var daily: Bool

    public init(directory: String = "./backups", keep: Int = 7, daily: Bool = true) {
        self.directory = directory
        self.keep = keep
        self.daily = daily
    }
}
