import Foundation
import GRDB
import OakModels
import OakSQLite
import OakStore
import OakStoreKit

extension SQLiteStore: SourceRepository {
    public func listSources() async throws -> [Source] {
        try read { db in
            try db.fetchAll(cachedSQL: "SELECT \(StoreSQL.sourceColumns) FROM sources s ORDER BY id", Source.init(row:))
        }
    }

    public func source(id: Int) async throws -> Source {
        try read { db in try Self.fetchSource(db, id) }
    }

    public func createSource(_ patch: SourcePatch) async throws -> Source {
        let new = try Source(id: 0, creating: patch)
        return try await write { db in
            try db.insert(into: "sources", new.columnValues)
            var source = new
            source.id = Int(db.lastInsertedRowID)
            source.speciesCount = 0
            return source
        }
    }

    public func updateSource(id: Int, with patch: SourcePatch) async throws -> Source {
        try await write { db in
            var source = try Self.fetchSource(db, id)
            try source.apply(patch)
            try db.update("sources", source.columnValues, where: "id = ?", [id])
            return source
        }
    }

    public func deleteSource(id: Int) async throws {
        try await write { db in
            _ = try Self.fetchSource(db, id)
            try StillReferenced.checkSourceDelete(
                id: id,
                species: try String.fetchAll(
                    db, cachedSQL: "SELECT scientific_name FROM species_sources WHERE source_id = ? ORDER BY scientific_name", arguments: [id]))
            try db.execute(cachedSQL: "DELETE FROM sources WHERE id = ?", arguments: [id])
        }
    }

    static func fetchSource(_ db: Database, _ id: Int) throws -> Source {
        guard let source = try db.fetchOne(cachedSQL: "SELECT \(StoreSQL.sourceColumns) FROM sources s WHERE id = ?", arguments: [id], Source.init(row:))
        else { throw OakError.notFound("Source", String(id)) }
        return source
    }

    static func sourceExists(_ db: Database, _ id: Int) throws -> Bool {
        try Bool.fetchOne(db, cachedSQL: "SELECT EXISTS(SELECT 1 FROM sources WHERE id = ?)", arguments: [id]) ?? false
    }

}
