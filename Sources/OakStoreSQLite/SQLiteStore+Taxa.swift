import Foundation
import GRDB
import OakModels
import OakSQLite
import OakStore
import OakStoreKit

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
        let creation = try TaxonWrite.create(patch)
        return try await write { db in
            let taxon = try creation.checked(
                alreadyExists: try Self.findTaxon(db, creation.taxon.key) != nil, parent: try Self.findTaxon(db, creation.parentToFind))
            try db.insert(into: "taxa", taxon.columnValues)
            return try Self.fetchTaxon(db, taxon.level, taxon.name)
        }
    }

    public func updateTaxon(level: TaxonLevel, name: String, with patch: TaxonPatch) async throws -> Taxon {
        try await write { db in
            let update = try TaxonWrite.update(try Self.fetchTaxon(db, level, name), with: patch)
            let taxon = try update.checked(parent: try Self.findTaxon(db, update.parentToFind))
            try Self.saveTaxon(db, taxon)
            return taxon
        }
    }

    public func deleteTaxon(level: TaxonLevel, name: String) async throws {
        try await write { db in
            let taxon = try Self.fetchTaxon(db, level, name)
            try StillReferenced.checkTaxonDelete(
                taxon,
                childTaxa: try String.fetchAll(
                    db, cachedSQL: "SELECT name FROM taxa WHERE parent = ? AND level = ? ORDER BY name",
                    arguments: [taxon.name, level.childLevel?.rawValue]),
                species: try String.fetchAll(
                    db, cachedSQL: "SELECT scientific_name FROM oak_entries WHERE \(level.rawValue) = ? ORDER BY scientific_name",
                    arguments: [taxon.name]))
            try db.execute(cachedSQL: "DELETE FROM taxa WHERE name = ? AND level = ?", arguments: [taxon.name, level.rawValue])
        }
    }

    /// The taxon stored at `key`; nil when there is none, or no key.
    static func findTaxon(_ db: Database, _ key: TaxonKey?) throws -> Taxon? {
        guard let key else { return nil }
        return try db.fetchOne(
            cachedSQL: "SELECT \(StoreSQL.taxonColumns) FROM taxa t WHERE level = ? AND name = ?", arguments: [key.level.rawValue, key.name],
            Taxon.init(row:)) ?? nil
    }

    static func fetchTaxon(_ db: Database, _ level: TaxonLevel, _ name: String) throws -> Taxon {
        guard let taxon = try findTaxon(db, TaxonKey(level, name)) else { throw OakError.notFound("Taxon \(level.rawValue)", name) }
        return taxon
    }

    /// Writes an existing taxon's row (found by its level and name, which never change).
    static func saveTaxon(_ db: Database, _ taxon: Taxon) throws {
        var values = taxon.columnValues
        values["name"] = nil
        values["level"] = nil
        try db.update("taxa", values, where: "name = ? AND level = ?", [taxon.name, taxon.level.rawValue])
    }
}
