import Foundation
import GRDB
import OakModels
import OakSQLite
import OakStore
import OakStoreKit

extension SQLiteStore: CatalogRepository {
    public func stats() async throws -> CatalogStats {
        try await longRead { db in
            func count(_ sql: String) throws -> Int { try Int.fetchOne(db, cachedSQL: sql) ?? 0 }
            func grouped(_ sql: String) throws -> [String: Int] {
                var result: [String: Int] = [:]
                for row in try Row.fetchAll(db, cachedSQL: sql) {
                    let key: String? = row[0]
                    result[key ?? "unknown"] = row[1]
                }
                return result
            }
            return CatalogStats(
                species: try count("SELECT COUNT(*) FROM oak_entries"),
                hybrids: try count("SELECT COUNT(*) FROM oak_entries WHERE is_hybrid"),
                taxa: try count("SELECT COUNT(*) FROM taxa"),
                sources: try count("SELECT COUNT(*) FROM sources"),
                speciesSources: try count("SELECT COUNT(*) FROM species_sources"),
                notes: try count("SELECT COUNT(*) FROM species_sources WHERE source_id = \(Source.personalObservationID)"),
                speciesBySubgenus: try grouped("SELECT subgenus, COUNT(*) FROM oak_entries GROUP BY subgenus"),
                speciesByConservationStatus: try grouped(
                    "SELECT conservation_status, COUNT(*) FROM oak_entries GROUP BY conservation_status"),
                taxaByLevel: try grouped("SELECT level, COUNT(*) FROM taxa GROUP BY level"),
                speciesSourcesBySource: try grouped(
                    "SELECT CAST(source_id AS TEXT), COUNT(*) FROM species_sources GROUP BY source_id"))
        }
    }

    public func checkReady() async throws {
        _ = try read { db in try Int.fetchOne(db, cachedSQL: "SELECT COUNT(*) FROM sources") }
    }

    /// The newest change sequence number: it moves on every committed mutation.
    static func changeLogVersion(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM sqlite_sequence WHERE name = 'change_log'")) ?? 0
    }
}
