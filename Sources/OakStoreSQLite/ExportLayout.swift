import Crypto
import Foundation
import GRDB
import NIOCore
import OakModels
import OakStore

/// A built export document, with what the next build needs to render again only the species that changed:
/// where each species' object lies in the body, its digest, and the species of every species-source row.
struct ExportLayout: Sendable {
    /// Where a species' object lies in `body`, and the SHA-256 of its bytes.
    struct Piece: Sendable {
        var range: Range<Int>
        var digest: [UInt8]
    }

    /// The change-log version the document shows.
    let version: Int64
    let body: ByteBuffer
    /// A hash of the document's head and the species' digests in order, so of the data only.
    let etag: String
    let pieces: [String: Piece]
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
        var assembly = Assembly(
            version: try SQLiteStore.changeLogVersion(db), head: try head(db), capacity: previous?.body.readableBytes ?? 1 << 20)
        try renderSpecies(db, named: nil) { name, object, rowIDs in
            assembly.append(name, object, digest: Array(SHA256.hash(data: object)))
            for id in rowIDs { assembly.speciesOfRow[id] = name }
        }
        return assembly.finish()
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
        var assembly = Assembly(
            version: try SQLiteStore.changeLogVersion(db), head: try head(db), capacity: previous.body.readableBytes + (64 << 10))
        assembly.speciesOfRow = speciesOfRow
        for name in try String.fetchAll(db, cachedSQL: "SELECT scientific_name FROM oak_entries ORDER BY scientific_name") {
            if let object = rendered[name] {
                assembly.append(name, object, digest: Array(SHA256.hash(data: object)))
            } else if let piece = previous.pieces[name] {
                assembly.append(name, previous.body.readableBytesView[piece.range], digest: piece.digest)
            } else {
                return nil
            }
        }
        return assembly.finish()
    }

    /// The document up to its species: `metadata` (the time of the data's last change and the number of
    /// species) and every source.
    private static func head(_ db: Database) throws -> [UInt8] {
        // Taxa are not in the export: their changes do not change it.
        let lastChange = try String.fetchOne(
            db, cachedSQL: "SELECT changed_at FROM change_log WHERE entity <> 'taxa' ORDER BY seq DESC LIMIT 1")
        let metadata = ExportMetadata(
            lastChange: ColumnCoding.date(lastChange),
            speciesCount: try Int.fetchOne(db, cachedSQL: "SELECT COUNT(*) FROM oak_entries") ?? 0)
        let sources = try db.fetchAll(cachedSQL: "SELECT * FROM sources ORDER BY id") { ExportSource(Source(row: $0)) }
        var output = JSONOutput(capacity: 4 << 10)
        output.raw(#"{"metadata":"#)
        try output.encoded(metadata)
        output.raw(#","sources":"#)
        try output.encoded(sources)
        output.raw(#","species":["#)
        return output.bytes
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
        var object = JSONOutput(capacity: 64 << 10)
        var tail = JSONOutput(capacity: 1 << 10)
        var current: (rowid: Int64, name: String)?
        var rowIDs: [String] = []
        func finish() throws {
            guard let current else { return }
            // A species without sources' data has no `sources` member.
            if !rowIDs.isEmpty { object.raw("]") }
            object.append(tail)
            try each(current.name, object.bytes, rowIDs)
            object.clear()
            rowIDs.removeAll(keepingCapacity: true)
        }
        while try rows.next() != nil {
            let rowid = columns.int(ExportColumn.rowid.rawValue)
            if rowid != current?.rowid {
                try finish()
                current = (rowid, columns.string(ExportColumn.scientificName.rawValue) ?? "")
                object.raw("{")
                try object.exportedSpeciesHead(columns, tail: &tail)
            }
            // Rows of a species without sources, and rows whose source is missing, carry no source.
            guard !columns.isNull(ExportColumn.joinedSourceID.rawValue) else { continue }
            object.raw(rowIDs.isEmpty ? #","sources":["# : ",")
            rowIDs.append(columns.string(ExportColumn.uuid.rawValue) ?? "")
            try object.exportedSourceData(columns)
        }
        try finish()
    }

    /// Collects species objects into the document, in order.
    private struct Assembly {
        let version: Int64
        var body: ByteBuffer
        var pieces: [String: Piece] = [:]
        var speciesOfRow: [String: String] = [:]
        var hasher = SHA256()

        /// Starts the document with `head` (everything before the first species), which the ETag covers too.
        init(version: Int64, head: [UInt8], capacity: Int) {
            self.version = version
            body = ByteBufferAllocator().buffer(capacity: capacity)
            body.writeBytes(head)
            hasher.update(data: head)
        }

        mutating func append(_ name: String, _ object: some Sequence<UInt8>, digest: [UInt8]) {
            if !pieces.isEmpty { body.writeStaticString(",") }
            let start = body.writerIndex
            body.writeBytes(object)
            pieces[name] = Piece(range: start..<body.writerIndex, digest: digest)
            hasher.update(data: digest)
        }

        mutating func finish() -> ExportLayout {
            body.writeStaticString("]}")
            let etag = hasher.finalize().strongETag
            return ExportLayout(version: version, body: body, etag: etag, pieces: pieces, speciesOfRow: speciesOfRow)
        }
    }
}

/// The export of the newest change-log version seen; a build for a newer version is shared by everyone who
/// asks while it runs, and starts from the last one built.
actor ExportCache {
    private var version: Int64 = -1
    private var build: Task<ExportLayout, any Error>?
    private var latest: ExportLayout?

    func snapshot(
        at version: Int64, building: @escaping @Sendable (_ previous: ExportLayout?) async throws -> ExportLayout
    ) async throws -> ExportSnapshot {
        if build == nil || version > self.version {
            self.version = version
            let previous = latest
            build = Task { try await building(previous) }
        }
        let current = build!
        do {
            let layout = try await current.value
            if layout.version > latest?.version ?? -1 { latest = layout }
            return ExportSnapshot(body: layout.body, etag: layout.etag)
        } catch {
            // A failed build is not kept: the next request tries again.
            if version == self.version { build = nil }
            throw error
        }
    }
}
