import Foundation
import OakModels
import OakStore
import OakStoreKit

extension PostgresStore: ServedStore {
    /// None: a database server is backed up with its own tools (pg_dump), which `POST /backup` names.
    public var backups: (any BackupRepository)? { nil }

    /// The database server's version (`SHOW server_version`) and the pool's settings.
    public func startupSummary() async throws -> String? {
        let version = try await read { session in try await session.text("SHOW server_version") } ?? "(unknown version)"
        return
            "PostgreSQL \(version): a pool of \(pool.maxConnections) connections, waits of at most \(pool.connectionWait), statements of at most \(pool.statementTimeout)"
    }
}

extension PostgresStore: MaintenanceRepository {
    /// What the connection pool is doing now; a database server has no file size to report.
    public var poolStatus: PoolStatus {
        let (reads, writes) = activity.current
        let (waits, waitSeconds, failures) = activity.waitsAndFailures
        return PoolStatus(
            readsInFlight: reads, writesInFlight: writes, maxReaders: maxConnections, fileBytes: nil, connectionWaits: (waits, waitSeconds),
            failures: failures, changeNotifications: listener == nil ? nil : changeNotifications.status)
    }

    /// The data's version: the change log's head as change notifications keep it known, else read from the
    /// database by a read that started after this call (another instance's writes move it, and an answer
    /// cached here must never outlive them). Concurrent calls share one read (`SharedRead`).
    public func dataVersion() async throws -> DataVersion {
        if let known = knownDataVersion { return known }
        let head = try await headReads.value {
            let start = self.changeNotifications.headReadStarts()
            let head = try await self.read { session in try await Self.changeLogHead(session) }
            self.changeNotifications.keep(head, readSince: start)
            return head
        }
        return DataVersion(writes: activity.writeCount, changeLogHead: head)
    }

    /// The version while change notifications keep the head known (`ChangeNotifications`).
    public var knownDataVersion: DataVersion? {
        changeNotifications.knownHead.map { DataVersion(writes: activity.writeCount, changeLogHead: $0) }
    }

    /// What changed after `position`: as this instance knows it (`ChangesAfterWrites`: nothing past the highest
    /// head, or as a write through it read it after its commit), else read by one statement. After each write every
    /// answer held here waits for this, so its round trips are what the reads of a mix with writes wait on
    /// (BENCHMARKS.md, "PostgreSQL beside SQLite").
    public func changes(after position: Int64?) async throws -> DataChanges {
        if let known = await changesAfterWrites.changes(after: position, reaching: changeNotifications.highestHead) { return known }
        let changes = try await read { session in try await Self.changes(session, after: position) }
        changesAfterWrites.answered(changes)
        return changes
    }

    /// What changed after `position`, read on `session` by one statement: one round trip, and one snapshot for the
    /// head, the listing version, the compaction mark and the entries.
    static func changes(_ session: PostgresSession, after position: Int64?) async throws -> DataChanges {
        let rows = try await session.rows(
            ChangesAfterStatement.self, [position.map(StoredValue.integer) ?? .null, StoredValue(DataChanges.feedLimit + 1)])
        let first = rows.first
        var changes = DataChanges(
            head: first?.integer("head") ?? 0, listingVersion: Int64(first?.text("listing_version") ?? "0") ?? 0)
        guard let position, position < changes.head else { return changes }
        let entries = rows.filter { $0.text("entity") != nil }
        if position < Int64(first?.text("compacted_through") ?? "0") ?? 0 || entries.count > DataChanges.feedLimit {
            changes.everything = true
            return changes
        }
        for row in entries {
            changes.add(entity: row.text("entity") ?? "", key: row.text("entity_key") ?? "", rowSpecies: row.text("row_species"))
        }
        return changes
    }

    /// The head, the listing version and the compaction mark on every row, with the change-log entries after `$1`
    /// (none when it is null), at most `$2` of them (one row of nulls when there are none).
    ///
    /// The position and the limit are read through subqueries, which the planner does not look into: with their
    /// values in sight PostgreSQL estimated a position near the head far cheaper than the generic plan and so planned
    /// every run afresh (0.44 ms of each run's bind, the most planned statement of the mix with writes); out of
    /// sight, every run is estimated alike, and the one plan (the same index scan) is kept after the first few.
    static let changesQuery = """
        SELECT (\(headQuery)) AS head,
            (SELECT value FROM sync_state WHERE key = 'listing_version') AS listing_version,
            (\(compactedThroughQuery)) AS compacted_through,
            f.entity, f.entity_key, f.row_species
        FROM (SELECT 1) AS one
        LEFT JOIN LATERAL (\(DataChanges.feedQuery(position: "(SELECT $1::bigint)", limit: "(SELECT $2::bigint)"))) AS f ON true
        """

    public func prepareSearch() async throws {
        try await searchIndex.catchUp(in: self)
    }
}
