import Foundation
import NIOCore
import OakModels
import OakStore
import OakStoreKit

extension PostgresStore: CatalogRepository {
    public func stats() async throws -> CatalogStats {
        try await snapshot { session in
            func count(_ sql: String) async throws -> Int { Int(try await session.integer(sql) ?? 0) }
            func grouped(_ sql: String) async throws -> [String: Int] {
                var result: [String: Int] = [:]
                for row in try await session.rows(sql) {
                    let columns = PostgresColumns(row)
                    result[columns.string(0) ?? "unknown"] = Int(columns.int(1))
                }
                return result
            }
            return CatalogStats(
                species: try await count("SELECT COUNT(*) FROM oak_entries"),
                hybrids: try await count("SELECT COUNT(*) FROM oak_entries WHERE is_hybrid <> 0"),
                taxa: try await count("SELECT COUNT(*) FROM taxa"),
                sources: try await count("SELECT COUNT(*) FROM sources"),
                speciesSources: try await count("SELECT COUNT(*) FROM species_sources"),
                notes: try await count("SELECT COUNT(*) FROM species_sources WHERE source_id = \(Source.personalObservationID)"),
                speciesBySubgenus: try await grouped("SELECT subgenus, COUNT(*) FROM oak_entries GROUP BY subgenus"),
                speciesByConservationStatus: try await grouped("SELECT conservation_status, COUNT(*) FROM oak_entries GROUP BY conservation_status"),
                taxaByLevel: try await grouped("SELECT level, COUNT(*) FROM taxa GROUP BY level"),
                speciesSourcesBySource: try await grouped("SELECT CAST(source_id AS text), COUNT(*) FROM species_sources GROUP BY source_id"))
        }
    }

    public func checkReady() async throws {
        try await read { session in _ = try await session.integer("SELECT COUNT(*) FROM sources") }
    }

    /// The export, built again when the change log has moved since the cached copy; concurrent requests for
    /// a new version share one build.
    public func export() async throws -> ExportSnapshot {
        let version = try await read { session in try await Self.changeLogHead(session) }
        return try await exportCache.snapshot(at: version) { _ in
            try await self.snapshot { session in try await PostgresExport.build(session) }
        }
    }

    public func releaseIdleExport(idleFor idle: Duration) async -> Bool {
        await exportCache.release(ifIdleFor: idle)
    }

    public func searchDocument(query: String, limit: Int) async throws -> ByteBuffer {
        let search = try SearchText(query)
        let names = try await searchIndex.search(search.rule, limit: limit, in: self)
        return try await read { session in
            var document = CatalogSearchDocument()
            if !names.isEmpty {
                try await session.forEach(
                    """
                    SELECT \(SpeciesRecordColumn.list) FROM jsonb_array_elements_text($1::jsonb) WITH ORDINALITY AS found(name, position)
                    JOIN oak_entries ON scientific_name = found.name ORDER BY found.position
                    """, [.text(ColumnCoding.json(names))]
                ) { try document.addSpecies($0) }
            }
            let arguments: [StoredValue] = [.text(search.text), StoredValue(limit)]
            let contains = "strpos(lower(name), lower($1)) > 0"
            let rank = "CASE WHEN lower(name) = lower($1) THEN 0 WHEN strpos(lower(name), lower($1)) = 1 THEN 1 ELSE 2 END"
            let taxa = try await session.rows(
                "SELECT \(StoreSQL.taxonColumns) FROM taxa t WHERE \(contains) ORDER BY \(rank), name, level LIMIT $2", arguments
            ).compactMap(Taxon.init(row:))
            let sources = try await session.rows(
                "SELECT \(StoreSQL.sourceColumns) FROM sources s WHERE \(contains) ORDER BY \(rank), name, id LIMIT $2", arguments
            ).map(Source.init(row:))
            return try document.finish(query: query, taxa: taxa, sources: sources)
        }
    }

    /// Always nil: every search reads the database.
    public func searchDocumentInMemory(query: String, limit: Int, at version: DataVersion) -> ByteBuffer? { nil }

    public func searchSpecies(query: String, limit: Int) async throws -> [Species] {
        try await matchingSpecies(try SearchText(query), limit: limit)
    }

    /// Species matching a search by the shared rule over the in-memory index, which first catches up with
    /// the change log.
    func matchingSpecies(_ search: SearchText, limit: Int) async throws -> [Species] {
        let names = try await searchIndex.search(search.rule, limit: limit, in: self)
        guard !names.isEmpty else { return [] }
        let species = try await read { session in
            try await session.rows(
                "SELECT * FROM oak_entries WHERE scientific_name IN (SELECT jsonb_array_elements_text($1::jsonb))", [.text(ColumnCoding.json(names))]
            ).map(Species.init(row:))
        }
        let order = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        return species.sorted { order[$0.scientificName, default: .max] < order[$1.scientificName, default: .max] }
    }
}

/// The export document as PostgreSQL builds it: all of it, from one query, whenever the change log moved.
struct PostgresExport: BuiltExport {
    let version: Int64
    let body: ByteBuffer
    let etag: String

    static func build(_ session: PostgresSession) async throws -> PostgresExport {
        let version = try await PostgresStore.changeLogHead(session)
        // Taxa are not in the export: their changes do not change it.
        let lastChange = try await session.text("SELECT changed_at FROM change_log WHERE entity <> 'taxa' ORDER BY seq DESC LIMIT 1")
        let head = try JSONOutput.exportHead(
            lastChange: ColumnCoding.date(lastChange), speciesCount: Int(try await session.integer("SELECT COUNT(*) FROM oak_entries") ?? 0),
            sources: try await session.rows("SELECT * FROM sources ORDER BY id").map(Source.init(row:)))
        var assembly = ExportAssembly(head: head, capacity: 1 << 20)
        var renderer = ExportSpeciesRenderer()
        let add = { (name: String, object: [UInt8], _: [String]) in assembly.append(name, rendered: object) }
        try await session.forEach(ExportColumn.select(speciesNumber: "dense_rank() OVER (ORDER BY e.scientific_name)", where: "")) {
            try renderer.add($0, add)
        }
        try renderer.finish(add)
        let (body, etag) = assembly.finish()
        return PostgresExport(version: version, body: body, etag: etag)
    }
}
