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

    /// Writes the held notes in their order, as one `INSERT` over one array a column (`StoredColumn`).
    mutating func flush(_ session: PostgresSession) async throws {
        guard !records.isEmpty else { return }
        var columns = SpeciesSource.columnNames.map { _ in [StoredValue]() }
        for record in records {
            for (index, value) in record.columnList.enumerated() { columns[index].append(value) }
        }
        var binds = PostgresBindings(capacity: columns.count)
        for (column, template) in zip(columns, Self.columnTemplate) { binds.append(StoredColumn(column, like: template)) }
        stored += try await session.packedRows(PushNoteInsertStatement.self, binds)
        records.removeAll(keepingCapacity: true)
    }

    /// A value of each of `SpeciesSource.columnNames` as a record writes it: which are integers, which text.
    private static let columnTemplate = SpeciesSource(scientificName: "", sourceId: 0).columnList

    /// The types of `insertSQL`'s parameters.
    static let parameterTypes = columnTemplate.map(StoredColumn.type(like:))

    /// The notes written since the last call, as `PulledNoteColumn`s.
    mutating func takeStored() -> [PackedColumns] {
        defer { stored.removeAll(keepingCapacity: true) }
        return stored
    }

    /// The rows of the column arrays `$1`… (in `SpeciesSource.columnNames`' order), inserted in the arrays' order;
    /// returned as `PulledNoteColumn`s in one `ROW(…)` a note (`PackedColumns`), each with the sequence number the
    /// insert trigger gives its change-log entry (`oak_logged_note_inserts`: the head before the statement, which
    /// the trigger moves only at its end, plus the row's rank by id).
    static let insertSQL: String = {
        let columns = SpeciesSource.columnNames.map { "\"\($0)\"" }.joined(separator: ", ")
        let arrays = SpeciesSource.columnNames.indices.map { "$\($0 + 1)" }.joined(separator: ", ")
        return """
            WITH ss AS (
                INSERT INTO species_sources (\(columns))
                SELECT \(columns) FROM unnest(\(arrays)) WITH ORDINALITY AS row(\(columns), ordinality)
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
