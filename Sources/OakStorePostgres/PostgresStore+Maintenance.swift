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
            failures: failures)
    }

    /// The data's version, with the change log's head read from the database by a read that started after
    /// this call: another instance's writes move it, and an answer cached here must never outlive them.
    /// Concurrent calls share one read (`SharedRead`).
    public func dataVersion() async throws -> DataVersion {
        let head = try await headReads.value { try await self.read { session in try await Self.changeLogHead(session) } }
        return DataVersion(writes: activity.writeCount, changeLogHead: head)
    }

    /// Never known without a read: other instances write the same database.
    public var knownDataVersion: DataVersion? { nil }

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
