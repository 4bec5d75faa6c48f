import Foundation
import OakModels

/// SQL that both backends run as written (standard SQL over the shared schema).
package enum StoreSQL {
    /// 1 when tombstones or push receipts are older than the time `cutoff` names (a placeholder, used twice),
    /// else 0: a compaction with nothing to remove is not made, so it takes no write lock and moves no data
    /// version (every cached answer would be made again after it).
    package static func anythingToCompact(cutoff: String) -> String {
        """
        SELECT CASE WHEN EXISTS (SELECT 1 FROM change_log WHERE op = 'delete' AND changed_at < \(cutoff))
            OR EXISTS (SELECT 1 FROM sync_receipts WHERE created_at < \(cutoff)) THEN 1 ELSE 0 END
        """
    }

    /// A note's row, its species' taxonomy and its version (`Note.init(row:)`), from `species_sources ss`, its
    /// upsert found in the change log as the backend keeps it (`log`). `leading`: columns a backend reads
    /// besides, before the others (PostgreSQL's row version).
    package static func noteSelect(_ log: NoteLog, leading: String? = nil) -> String {
        """
        SELECT \(leading.map { "\($0), " } ?? "")ss.*, e.subgenus, e.section, e.subsection, e.complex, c.seq AS version
        FROM species_sources ss
        JOIN oak_entries e ON e.scientific_name = ss.scientific_name
        LEFT JOIN change_log c ON \(log.upsertJoin)
        """
    }

    /// A taxon's columns (of `taxa t`) and `species_count`, the number of species it holds.
    package static let taxonColumns = """
        t.*, CASE t.level \(TaxonLevel.allCases.map { "WHEN '\($0.rawValue)' THEN (SELECT COUNT(*) FROM oak_entries WHERE \($0.rawValue) = t.name)" }.joined(separator: " ")) END AS species_count
        """

    /// A source's columns (of `sources s`) and `species_count`, the number of species with data from it.
    package static let sourceColumns = "s.*, (SELECT COUNT(*) FROM species_sources WHERE source_id = s.id) AS species_count"

    /// Whether a `local_names` value (an SQL expression) holds any name.
    package static func hasNames(_ column: String) -> String { "(\(column) IS NOT NULL AND \(column) NOT IN ('', '[]'))" }

    /// The order of taxa in lists: by rank, then name.
    package static let taxonOrder = "CASE level WHEN 'subgenus' THEN 0 WHEN 'section' THEN 1 WHEN 'subsection' THEN 2 ELSE 3 END, name"
}

/// How a backend's change log keeps notes' entries, as SQL over `change_log c` and `species_sources ss`.
package struct NoteLog: Sendable {
    /// Joins a note to its upsert.
    package let upsertJoin: String
    /// Joins an entry of `change_log c` to its note as `ss`, the way a pull and a push's answer read them.
    package let noteOfEntry: String
    /// Holds for every entry kept by its key (tombstones among them): a look-up by key names it to use the
    /// key index.
    package let keyedEntry: String

    /// Every entry by its key, a note's by its id (PostgreSQL).
    /// An entry's note is looked up by its id, one index look-up an entry: `OFFSET 0` keeps PostgreSQL from folding
    /// the look-up into a hash join that reads every note for each page, so that a page's cost would grow with the
    /// table (see BENCHMARKS.md, "PostgreSQL beside SQLite").
    package static let byKey = NoteLog(
        upsertJoin: "c.entity = 'notes' AND c.entity_key = ss.uuid",
        noteOfEntry: "JOIN LATERAL (SELECT * FROM species_sources WHERE uuid = c.entity_key OFFSET 0) ss ON c.entity = 'notes'",
        keyedEntry: "TRUE")
    /// A note's upsert by its row, still under its id (`note_row`, SQLite from v13); every other entry by its key.
    package static let byNoteRow = NoteLog(
        upsertJoin: "c.note_row = ss.id AND c.entity_key = ss.uuid",
        noteOfEntry: "JOIN species_sources ss ON c.note_row = ss.id AND c.entity_key = ss.uuid", keyedEntry: "c.note_row IS NULL")
}

extension Note {
    /// A note from a row of `StoreSQL.noteSelect`.
    package init(row: some StoredRow) {
        self.init(row: row, record: SpeciesSource(row: row))
    }

    /// A note from a row of `StoreSQL.noteSelect` whose note columns were read already (`record`), for a caller that
    /// needs both.
    package init(row: some StoredRow, record: SpeciesSource) {
        self.init(
            id: record.uuid, scientificName: record.scientificName,
            taxonomy: NoteTaxonomy(
                subgenus: row.text("subgenus"), section: row.text("section"), subsection: row.text("subsection"), complex: row.text("complex")),
            fields: NoteFields(record), sourceId: record.sourceId, createdAt: record.createdAt, updatedAt: record.updatedAt,
            version: row.integer("version") ?? 0, reference: NoteReference(record), fieldTimes: record.fieldTimes)
    }
}
