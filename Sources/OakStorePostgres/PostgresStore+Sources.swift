import Foundation
import OakModels
import OakStore
import OakStoreKit

extension PostgresStore: SourceRepository {
    public func listSources() async throws -> [Source] {
        try await read { session in
            try await session.rows("SELECT \(StoreSQL.sourceColumns) FROM sources s ORDER BY id").map(Source.init(row:))
        }
    }

    public func source(id: Int) async throws -> Source {
        try await read { session in try await Self.fetchSource(session, id) }
    }

    public func createSource(_ patch: SourcePatch) async throws -> Source {
        let new = try Source(id: 0, creating: patch)
        return try await write { session in
            var source = new
            source.id = Int(try await session.insert(into: "sources", new.columnValues, returning: "id") ?? 0)
            source.speciesCount = 0
            return source
        }
    }

    public func updateSource(id: Int, with patch: SourcePatch) async throws -> Source {
        try await write { session in
            var source = try await Self.fetchSource(session, id)
            try source.apply(patch)
            try await session.update("sources", source.columnValues, where: "id = $1", [StoredValue(id)])
            return source
        }
    }

    public func deleteSource(id: Int) async throws {
        try await write { session in
            _ = try await Self.fetchSource(session, id)
            try StillReferenced.checkSourceDelete(
                id: id,
                species: try await session.texts(
                    "SELECT scientific_name FROM species_sources WHERE source_id = $1 ORDER BY scientific_name", [StoredValue(id)]))
            try await session.execute("DELETE FROM sources WHERE id = $1", [StoredValue(id)])
        }
    }

    static func fetchSource(_ session: PostgresSession, _ id: Int) async throws -> Source {
        guard let row = try await session.row("SELECT \(StoreSQL.sourceColumns) FROM sources s WHERE id = $1", [StoredValue(id)]) else {
            throw OakError.notFound("Source", String(id))
        }
        return Source(row: row)
    }

    static func sourceExists(_ session: PostgresSession, _ id: Int) async throws -> Bool {
        try await session.row("SELECT 1 FROM sources WHERE id = $1", [StoredValue(id)]) != nil
    }

}
