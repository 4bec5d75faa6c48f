import Foundation
import GRDB
import NIOCore
import OakModels
import OakStore
import OakStoreKit

extension SQLiteStore {
    /// The export, rebuilt only when the change log has moved since the cached copy; concurrent requests
    /// for a new version share one rebuild, which renders again only the species changed since.
    public func export() async throws -> ExportSnapshot {
        let version = try read { db in try Self.changeLogVersion(db) }
        return try await exportCache.snapshot(at: version) { previous in
            try await self.longRead { db in try ExportLayout.build(db, after: previous) }
        }
    }

    public func releaseIdleExport(idleFor idle: Duration) async -> Bool {
        await exportCache.release(ifIdleFor: idle)
    }
}

extension ExportColumn {
    /// Every species in name order, each followed by its sources as the species routes order them.
    static let query = select(speciesNumber: "e.rowid", where: "")

    /// The same for the species named in a JSON array (the argument).
    static let namedQuery = select(speciesNumber: "e.rowid", where: "WHERE e.scientific_name IN (SELECT value FROM json_each(?))")

}
