/// Gauges of a store's connection pool, for metrics.
public struct PoolStatus: Sendable {
    public var readsInFlight: Int
    public var writesInFlight: Int
    public var maxReaders: Int
    /// The size of the database's files (for SQLite, the file and its write-ahead log); nil when the database
    /// is a server's (PostgreSQL).
    public var fileBytes: Int?
    /// For a pool of connections to a database server: the connections leased so far, the seconds spent
    /// waiting for them, and the database's failures by kind.
    public var connectionWaits: (count: Int, seconds: Double)?
    public var failures: [String: Int]
    /// For a database other instances write too: what this one hears of their commits.
    public var changeNotifications: ChangeNotificationStatus?

    public init(
        readsInFlight: Int, writesInFlight: Int, maxReaders: Int, fileBytes: Int?, connectionWaits: (count: Int, seconds: Double)? = nil,
        failures: [String: Int] = [:], changeNotifications: ChangeNotificationStatus? = nil
    ) {
        self.readsInFlight = readsInFlight
        self.writesInFlight = writesInFlight
        self.maxReaders = maxReaders
        self.fileBytes = fileBytes
        self.connectionWaits = connectionWaits
        self.failures = failures
        self.changeNotifications = changeNotifications
    }
}

/// What an instance hears of the commits to a database other instances write too (PostgreSQL's change
/// notifications).
public struct ChangeNotificationStatus: Sendable {
    /// Whether commits are heard now (the listening connection is open).
    public var listening: Bool
    /// Commits heard since the start (this instance's own too).
    public var heard: Int
    /// The highest change-log head a commit announced.
    public var headHeard: Int64?

    public init(listening: Bool, heard: Int, headHeard: Int64?) {
        self.listening = listening
        self.heard = heard
        self.headHeard = headHeard
    }
}

/// A version of the data (`MaintenanceRepository.dataVersion()`): answers derived from the data can be kept
/// under it. It is made of this process's write count and the change log's head, which both only grow.
public struct DataVersion: Hashable, Comparable, Sendable {
    package var writes: UInt64
    package var changeLogHead: Int64

    package init(writes: UInt64, changeLogHead: Int64) {
        self.writes = writes
        self.changeLogHead = changeLogHead
    }

    /// Both parts only grow, so a later version is greater.
    public static func < (lhs: DataVersion, rhs: DataVersion) -> Bool {
        (lhs.writes, lhs.changeLogHead) < (rhs.writes, rhs.changeLogHead)
    }
}
