import Foundation
import GRDB
import OakModels
import OakSQLite
import OakStore

extension SQLiteStore: TaxonRepository {
    public func listTaxa(level: TaxonLevel?, parent: String?, limit: Int?, offset: Int) async throws -> Page<Taxon> {
        var sql = SQLFilter()
        sql.add("level = ?", level?.rawValue)
        sql.add("parent = ? COLLATE NOCASE", parent)
        let query = sql
        return try read { db in
            try query.page(
                db, select: StoreSQL.taxonColumns, from: "taxa t",
                orderBy: StoreSQL.taxonOrder,
                limit: limit, offset: offset, Taxon.init(row:))
        }
    }

    public func taxon(level: TaxonLevel, name: String) async throws -> Taxon {
        try read { db in try Self.fetchTaxon(db, level, name) }
    }

    public func createTaxon(_ patch: TaxonPatch) async throws -> Taxon {
        let taxon = try Taxon(creating: patch)
        return try await write { db in
            if (try? Self.fetchTaxon(db, taxon.level, taxon.name)) != nil {
                throw OakError(.conflict, "Taxon \(taxon.level.rawValue) '\(taxon.name)' already exists")
            }
            try Self.checkParent(db, of: taxon)
            try db.insert(into: "taxa", taxon.columnValues)
            return try Self.fetchTaxon(db, taxon.level, taxon.name)
        }
    }

    public func updateTaxon(level: TaxonLevel, name: String, with patch: TaxonPatch) async throws -> Taxon {
        try await write { db in
            var taxon = try Self.fetchTaxon(db, level, name)
            try taxon.apply(patch)
            if patch.parent.isPresent { try Self.checkParent(db, of: taxon) }
            try Self.saveTaxon(db, taxon)
            return taxon
        }
    }

    public func deleteTaxon(level: TaxonLevel, name: String) async throws {
        try await write { db in
            let taxon = try Self.fetchTaxon(db, level, name)
            let children = try String.fetchAll(
                db, cachedSQL: "SELECT name FROM taxa WHERE parent = ? AND level = ? ORDER BY name",
                arguments: [taxon.name, level.childLevel?.rawValue])
            let species = try String.fetchAll(
                db, cachedSQL: "SELECT scientific_name FROM oak_entries WHERE \(level.rawValue) = ? ORDER BY scientific_name",
                arguments: [taxon.name])
            if !children.isEmpty || !species.isEmpty {
                throw OakError(
                    .conflict,
                    "Taxon \(level.rawValue) '\(taxon.name)' is still used by \(children.count) taxa and \(species.count) species",
                    details: [
                        "blocking_taxa": .array(children.map(JSONValue.string)),
                        "blocking_species": .array(species.map(JSONValue.string)),
                    ])
            }
            try db.execute(cachedSQL: "DELETE FROM taxa WHERE name = ? AND level = ?", arguments: [taxon.name, level.rawValue])
        }
    }

    static func fetchTaxon(_ db: Database, _ level: TaxonLevel, _ name: String) throws -> Taxon {
        guard
            let taxon = try db.fetchOne(
                cachedSQL: "SELECT \(StoreSQL.taxonColumns) FROM taxa t WHERE level = ? AND name = ?", arguments: [level.rawValue, name], Taxon.init(row:))
                ?? nil
        else { throw OakError.notFound("Taxon \(level.rawValue)", name) }
        return taxon
    }

    /// Writes an existing taxon's row (found by its level and name, which never change).
    static func saveTaxon(_ db: Database, _ taxon: Taxon) throws {
        var values = taxon.columnValues
        values["name"] = nil
        values["level"] = nil
        try db.update("taxa", values, where: "name = ? AND level = ?", [taxon.name, taxon.level.rawValue])
    }

    /// A named parent must exist one level up.
    static func checkParent(_ db: Database, of taxon: Taxon) throws {
        guard let parent = taxon.parent, let parentLevel = taxon.level.parentLevel else { return }
        if (try? fetchTaxon(db, parentLevel, parent)) == nil {
            throw OakError.unknownReference("parent", "no \(parentLevel.rawValue) named '\(parent)' exists")
        }
    }
}
