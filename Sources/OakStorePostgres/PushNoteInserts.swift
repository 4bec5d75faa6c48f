import OakModels
import OakStore
import OakStoreKit
import PostgresNIO

/// The new notes of a push batch, written together in one statement instead of one round trip each. A new note
/// is held only until the push runs any other statement (`flush` comes first), so the change log still numbers
/// the batch's changes in their order and every read sees the notes the batch made before it. The statement
/// returns each note as the pull writes it, for its answer (`takeStored`), so the notes are not read again.
struct PushNoteInserts {
    private var records: [SpeciesSource] = []
    /// The notes written and not yet taken, as `PulledNoteColumn`s.
    private var stored: [PackedColumns] = []

    mutating func add(_ record: SpeciesSource) {
        records.append(record)
    }

    /// Writes the held notes in their order, as one `INSERT` over a JSON array of rows.
    mutating func flush(_ session: PostgresSession) async throws {
        guard !records.isEmpty else { return }
        var rows = JSONOutput(capacity: 64 + records.count * 768)
        rows.raw("[")
        for (index, record) in records.enumerated() {
            rows.raw(index == 0 ? "{" : ",{")
            for (column, (name, value)) in zip(SpeciesSource.columnNames, record.columnList).enumerated() {
                if column > 0 { rows.raw(",") }
                rows.string(name)
                rows.raw(":")
                switch value {
                case .text(let text): rows.string(text)
                case .integer(let number): rows.int(number)
                case .null: rows.null()
                }
            }
            rows.raw("}")
        }
        rows.raw("]")
        stored += try await session.packedRows(Self.insertSQL, [.text(rows.withBytes { String(decoding: $0, as: UTF8.self) })])
        records.removeAll(keepingCapacity: true)
    }

    /// The notes written since the last call, as `PulledNoteColumn`s.
    mutating func takeStored() -> [PackedColumns] {
        defer { stored.removeAll(keepingCapacity: true) }
        return stored
    }

    /// The rows of a JSON array, typed by the table's own row type, inserted in the array's order; returned as
    /// `PulledNoteColumn`s in one `ROW(…)` a note (`PackedColumns`), each with the sequence number the insert
    /// trigger gives its change-log entry (`oak_logged_note_inserts`: the head before the statement, which the
    /// trigger moves only at its end, plus the row's rank by id).
    private static let insertSQL: String = {
        let columns = SpeciesSource.columnNames.map { "\"\($0)\"" }.joined(separator: ", ")
        return """
            WITH ss AS (
                INSERT INTO species_sources (\(columns))
                SELECT \(columns) FROM jsonb_populate_recordset(NULL::species_sources, $1::jsonb) WITH ORDINALITY AS row
                ORDER BY row.ordinality
                RETURNING *
            )
            SELECT ROW(\(PulledNoteColumn.expressions))
            FROM (SELECT ss.id, h.seq + row_number() OVER (ORDER BY ss.id) AS seq FROM ss, change_log_head h) c
            JOIN ss ON ss.id = c.id
            JOIN oak_entries e ON e.scientific_name = ss.scientific_name
            """
    }()
}
