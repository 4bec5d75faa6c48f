import Foundation
import OakModels
import OakStore
import OakStoreKit

extension PostgresStore: TaxonRepository {
    public func listTaxa(level: TaxonLevel?, parent: String?, limit: Int?, offset: Int) async throws -> Page<Taxon> {
        var query = PostgresFilter()
        query.add("level = $", level.map { .text($0.rawValue) })
        query.add("lower(parent) = lower($)", parent.map { .text($0) })
        let filter = query
        return try await read { session in
            try await filter.page(
                session, select: StoreSQL.taxonColumns, from: "taxa t",
                orderBy: StoreSQL.taxonOrder,
                limit: limit, offset: offset, Taxon.init(row:))
        }
    }

    public func taxon(level: TaxonLevel, name: String) async throws -> Taxon {
        try await read { session in try await Self.fetchTaxon(session, level, name) }
    }

    public func createTaxon(_ patch: TaxonPatch) async throws -> Taxon {
        let creation = try TaxonWrite.create(patch)
        return try await write { session in
            let taxon = try creation.checked(
                alreadyExists: try await Self.findTaxon(session, creation.taxon.key) != nil,
                parent: try await Self.findTaxon(session, creation.parentToFind))
            try await session.insert(into: "taxa", taxon.columnValues)
            return try await Self.fetchTaxon(session, taxon.level, taxon.name)
        }
    }

    public func updateTaxon(level: TaxonLevel, name: String, with patch: TaxonPatch) async throws -> Taxon {
        try await write { session in
            let update = try TaxonWrite.update(try await Self.fetchTaxon(session, level, name), with: patch)
            let taxon = try update.checked(parent: try await Self.findTaxon(session, update.parentToFind))
            var values = taxon.columnValues
            values["name"] = nil
            values["level"] = nil
            try await session.update("taxa", values, where: "name = $1 AND level = $2", [.text(taxon.name), .text(level.rawValue)])
            return taxon
        }
    }

    public func deleteTaxon(level: TaxonLevel, name: String) async throws {
        try await write { session in
            let taxon = try await Self.fetchTaxon(session, level, name)
            try StillReferenced.checkTaxonDelete(
                taxon,
                childTaxa: try await session.texts(
                    "SELECT name FROM taxa WHERE parent = $1 AND level = $2 ORDER BY name", [.text(taxon.name), StoredValue(level.childLevel?.rawValue)]),
                species: try await session.texts(
                    "SELECT scientific_name FROM oak_entries WHERE \(level.rawValue) = $1 ORDER BY scientific_name", [.text(taxon.name)]))
            try await session.execute("DELETE FROM taxa WHERE name = $1 AND level = $2", [.text(taxon.name), .text(level.rawValue)])
        }
    }

    /// The taxon stored at `key`; nil when there is none, or no key.
    static func findTaxon(_ session: PostgresSession, _ key: TaxonKey?) async throws -> Taxon? {
        guard let key else { return nil }
        return try await session.row(
            "SELECT \(StoreSQL.taxonColumns) FROM taxa t WHERE level = $1 AND name = $2", [.text(key.level.rawValue), .text(key.name)]
        ).flatMap(Taxon.init(row:))
    }

    static func fetchTaxon(_ session: PostgresSession, _ level: TaxonLevel, _ name: String) async throws -> Taxon {
        guard let taxon = try await findTaxon(session, TaxonKey(level, name)) else { throw OakError.notFound("Taxon \(level.rawValue)", name) }
        return taxon
    }
}
