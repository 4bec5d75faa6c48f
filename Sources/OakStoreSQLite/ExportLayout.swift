import Foundation
import GRDB
import NIOCore
import OakModels
import OakSQLite
import OakStore
import OakStoreKit

/// A built export document, with what the next build needs to render again only the species that changed:
/// where each species' object lies in the body, its digest, and the species of every species-source row.
struct ExportLayout: BuiltExport {
    /// The change-log version the document shows.
    let version: Int64
    let body: ByteBuffer
    /// A hash of the document's head and the species' digests in order, so of the data only.
    let etag: String
    let pieces: [String: ExportAssembly.Piece]
    /// The species of each species-source row by uuid: the change of a deleted row names only its uuid.
    let speciesOfRow: [String: String]

    /// More changes than this since the previous build, and rendering everything again is simpler.
    static let maxChangesToPatch = 1000

    /// Builds the export in the current read transaction, from `previous` when only some species changed.
    static func build(_ db: Database, after previous: ExportLayout?) throws -> ExportLayout {
        if let previous, let changed = try changedSpecies(db, since: previous),
            let layout = try patched(db, previous, rendering: changed)
        {
            return layout
        }
        let version = try SQLiteStore.changeLogVersion(db)
        var assembly = ExportAssembly(head: try head(db), capacity: previous?.body.readableBytes ?? 1 << 20)
        var speciesOfRow: [String: String] = [:]
        try renderSpecies(db, named: nil) { name, object, rowIDs in
            assembly.append(name, rendered: object)
            for id in rowIDs { speciesOfRow[id] = name }
        }
        return layout(version: version, &assembly, speciesOfRow: speciesOfRow)
    }

    /// The species whose objects changed since `previous`; nil when that cannot be told cheaply (a source
    /// changed, which every species it describes shows; too many changes; tombstones compacted away).
    static func changedSpecies(_ db: Database, since previous: ExportLayout) throws -> Set<String>? {
        guard try SQLiteStore.compactedThrough(db) <= previous.version else { return nil }
        let changes = try Row.fetchAll(
            db, cachedSQL: "SELECT entity, entity_key, op FROM change_log WHERE seq > ? AND entity <> 'taxa' ORDER BY seq LIMIT ?",
            arguments: [previous.version, maxChangesToPatch + 1])
        guard changes.count <= maxChangesToPatch else { return nil }
        var changed: Set<String> = []
        for change in changes {
            let key: String = change["entity_key"]
            switch SyncEntity(rawValue: change["entity"]) {
            case .species:
                changed.insert(key)
            case .notes:
                if let species = previous.speciesOfRow[key] { changed.insert(species) }
                if let species = try String.fetchOne(db, cachedSQL: "SELECT scientific_name FROM species_sources WHERE uuid = ?", arguments: [key]) {
                    changed.insert(species)
                }
            default:
                return nil
            }
        }
        return changed
    }

    /// `previous` with the `changed` species rendered again (gone when deleted, added when new) and the
    /// others copied; nil if a species is in neither, which the change log rules out.
    private static func patched(_ db: Database, _ previous: ExportLayout, rendering changed: Set<String>) throws -> ExportLayout? {
        var rendered: [String: [UInt8]] = [:]
        var speciesOfRow = previous.speciesOfRow
        try renderSpecies(db, named: changed) { name, object, rowIDs in
            rendered[name] = object
            for id in rowIDs { speciesOfRow[id] = name }
        }
        let version = try SQLiteStore.changeLogVersion(db)
        var assembly = ExportAssembly(head: try head(db), capacity: previous.body.readableBytes + (64 << 10))
        for name in try String.fetchAll(db, cachedSQL: "SELECT scientific_name FROM oak_entries ORDER BY scientific_name") {
            if let object = rendered[name] {
                assembly.append(name, rendered: object)
            } else if let piece = previous.pieces[name] {
                assembly.append(name, previous.body.readableBytesView[piece.range], digest: piece.digest)
            } else {
                return nil
            }
        }
        return layout(version: version, &assembly, speciesOfRow: speciesOfRow)
    }

    /// The finished document of an assembly.
    private static func layout(version: Int64, _ assembly: inout ExportAssembly, speciesOfRow: [String: String]) -> ExportLayout {
        let (body, etag) = assembly.finish()
        return ExportLayout(version: version, body: body, etag: etag, pieces: assembly.pieces, speciesOfRow: speciesOfRow)
    }

    /// The document up to its species (`JSONOutput.exportHead`).
    private static func head(_ db: Database) throws -> [UInt8] {
        // Taxa are not in the export: their changes do not change it.
        let lastChange = try String.fetchOne(
            db, cachedSQL: "SELECT changed_at FROM change_log WHERE entity <> 'taxa' ORDER BY seq DESC LIMIT 1")
        return try JSONOutput.exportHead(
            lastChange: ColumnCoding.date(lastChange), speciesCount: try Int.fetchOne(db, cachedSQL: "SELECT COUNT(*) FROM oak_entries") ?? 0,
            sources: try db.fetchAll(cachedSQL: "SELECT * FROM sources ORDER BY id", Source.init(row:)))
    }

    /// Renders the export objects of the species named (all when nil) in name order: each with the uuids
    /// of its species-source rows.
    private static func renderSpecies(
        _ db: Database, named names: Set<String>?, _ each: (_ name: String, _ object: [UInt8], _ rowIDs: [String]) throws -> Void
    ) throws {
        let statement = try db.cachedStatement(sql: names == nil ? ExportColumn.query : ExportColumn.namedQuery)
        let arguments: StatementArguments = names.map { [ColumnCoding.json(Array($0))] } ?? []
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        let columns = StatementColumns(statement)
        var renderer = ExportSpeciesRenderer()
        while try rows.next() != nil {
            try renderer.add(columns, each)
        }
        try renderer.finish(each)
    }
}
