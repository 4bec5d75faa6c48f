import Foundation
import OakModels
import OakStore

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

    public func changes(after position: Int64?) async throws -> DataChanges {
        try await snapshot { session in
            var changes = DataChanges(
                head: try await Self.changeLogHead(session),
                listingVersion: Int64(try await session.text("SELECT value FROM sync_state WHERE key = 'listing_version'") ?? "0") ?? 0)
            guard let position, position < changes.head else { return changes }
            if position < (try await Self.compactedThrough(session)) {
                changes.everything = true
                return changes
            }
            let rows = try await session.rows(
                DataChanges.feedQuery(position: "$1", limit: "$2"), [.integer(position), StoredValue(DataChanges.feedLimit + 1)])
            if rows.count > DataChanges.feedLimit {
                changes.everything = true
                return changes
            }
            for row in rows {
                changes.add(entity: row.text("entity") ?? "", key: row.text("entity_key") ?? "", rowSpecies: row.text("row_species"))
            }
            return changes
        }
    }

    public func prepareSearch() async throws {
        try await searchIndex.catchUp(in: self)
    }
}
