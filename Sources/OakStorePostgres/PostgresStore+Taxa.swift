import Foundation
import OakModels
import OakStore

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
        let taxon = try Taxon(creating: patch)
        return try await write { session in
            if try await Self.findTaxon(session, taxon.level, taxon.name) != nil {
                throw OakError(.conflict, "Taxon \(taxon.level.rawValue) '\(taxon.name)' already exists")
            }
            try await Self.checkParent(session, of: taxon)
            try await session.insert(into: "taxa", taxon.columnValues)
            return try await Self.fetchTaxon(session, taxon.level, taxon.name)
        }
    }

    public func updateTaxon(level: TaxonLevel, name: String, with patch: TaxonPatch) async throws -> Taxon {
        try await write { session in
            var taxon = try await Self.fetchTaxon(session, level, name)
            try taxon.apply(patch)
            if patch.parent.isPresent { try await Self.checkParent(session, of: taxon) }
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
            let children = try await session.texts(
                "SELECT name FROM taxa WHERE parent = $1 AND level = $2 ORDER BY name", [.text(taxon.name), StoredValue(level.childLevel?.rawValue)])
            let species = try await session.texts(
                "SELECT scientific_name FROM oak_entries WHERE \(level.rawValue) = $1 ORDER BY scientific_name", [.text(taxon.name)])
            if !children.isEmpty || !species.isEmpty {
                throw OakError(
                    .conflict, "Taxon \(level.rawValue) '\(taxon.name)' is still used by \(children.count) taxa and \(species.count) species",
                    details: [
                        "blocking_taxa": .array(children.map(JSONValue.string)), "blocking_species": .array(species.map(JSONValue.string)),
                    ])
            }
            try await session.execute("DELETE FROM taxa WHERE name = $1 AND level = $2", [.text(taxon.name), .text(level.rawValue)])
        }
    }

    static func findTaxon(_ session: PostgresSession, _ level: TaxonLevel, _ name: String) async throws -> Taxon? {
        try await session.row("SELECT \(StoreSQL.taxonColumns) FROM taxa t WHERE level = $1 AND name = $2", [.text(level.rawValue), .text(name)])
            .flatMap(Taxon.init(row:))
    }

    static func fetchTaxon(_ session: PostgresSession, _ level: TaxonLevel, _ name: String) async throws -> Taxon {
        guard let taxon = try await findTaxon(session, level, name) else { throw OakError.notFound("Taxon \(level.rawValue)", name) }
        return taxon
    }

    /// A named parent must exist one level up.
    static func checkParent(_ session: PostgresSession, of taxon: Taxon) async throws {
        guard let parent = taxon.parent, let parentLevel = taxon.level.parentLevel else { return }
        if try await findTaxon(session, parentLevel, parent) == nil {
            throw OakError.unknownReference("parent", "no \(parentLevel.rawValue) named '\(parent)' exists")
        }
    }
}
