import OakModels
import PostgresNIO

/// A statement each connection keeps prepared under a name of its own: PostgreSQL parses it once per connection and,
/// after a few runs, keeps one plan for it, where an unnamed statement is parsed and planned again on every run. In
/// the read mix with writes, parsing and planning were about half of PostgreSQL's time, most of it on the few
/// statements below (BENCHMARKS.md, "PostgreSQL beside SQLite"). For statements whose text never changes, that
/// run on most requests or writes and answer a few rows; run with `PostgresSession.rows(_:_:)`. A kept statement's
/// rows come through PostgresNIO's async sequence, which hands them over in slices and pauses the connection
/// between them: a pull's page of 1,000 rows so cost the server 12 % more CPU than as an unnamed statement, whose
/// rows come at once, more than its planning saved PostgreSQL.
protocol KeptStatement: SendableMetatype {
    /// The name each connection keeps it prepared under. Spelled out: PostgresNIO's default, the type's name made by
    /// reflection, was made again on every run (about 1 % of the server's time in a load of note edits).
    static var name: String { get }
    static var sql: String { get }
    /// The types of `$1`, `$2`, …, which the one plan is made for.
    static var parameterTypes: [PostgresDataType] { get }
}

/// A `KeptStatement` as PostgresNIO prepares it, its rows as the session reads them.
struct Prepared<Statement: KeptStatement>: PostgresPreparedStatement {
    static var name: String { Statement.name }
    static var sql: String { Statement.sql }
    static var bindingDataTypes: [PostgresDataType] { Statement.parameterTypes }

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRandomAccessRow { row.makeRandomAccess() }
}

/// What changed after a position (`PostgresStore.changes(after:)`), read after every write by each answer
/// cache and index that follows the change log.
enum ChangesAfterStatement: KeptStatement {
    static let name = "oak_changes_after"
    static let sql = PostgresStore.changesQuery
    static let parameterTypes: [PostgresDataType] = [.int8, .int8]
}

/// A note with its row's version, by id: the read of every note update.
enum NoteWithRowVersionStatement: KeptStatement {
    static let name = "oak_note_with_row_version"
    static let sql = "\(PostgresStore.noteSelectWithRowVersion) WHERE ss.uuid = $1"
    static let parameterTypes: [PostgresDataType] = [.text]
}

/// A species' full record, by any of its stored spellings.
enum SpeciesFullStatement: KeptStatement {
    static let name = "oak_species_full"
    static let sql = PostgresStore.speciesFullQuery
    static let parameterTypes = [PostgresDataType](repeating: .text, count: Species.maxStoredSpellings)
}

/// A note's edit, in one statement (`PostgresStore.saveNote(_:_:ifRowVersion:)`): the row's id, the row version it
/// was read at, then the written columns' values, each of which takes the type of the column it is assigned to
/// (`PostgresDataType.null` leaves a parameter's type for PostgreSQL to infer).
enum NoteSaveStatement: KeptStatement {
    static let name = "oak_note_save"
    static let sql = PostgresStore.noteSaveSQL
    static let parameterTypes: [PostgresDataType] = [.int8, .text] + PostgresStore.writtenColumnNames.map { _ in .null }
}

/// A push batch's state (`PostgresStore.pushBatchStateQuery`): the changes' ids and digests, then the slots' names,
/// sources, and pairs of name and source.
enum PushBatchStateStatement: KeptStatement {
    static let name = "oak_push_batch_state"
    static let sql = PostgresStore.pushBatchStateQuery
    static let parameterTypes: [PostgresDataType] = [.textArray, .textArray, .textArray, .int8Array, .textArray, .int8Array]
}

/// A push batch's new notes (`PushNoteInserts`): one array a column.
enum PushNoteInsertStatement: KeptStatement {
    static let name = "oak_push_note_insert"
    static let sql = PushNoteInserts.insertSQL
    static let parameterTypes = PushNoteInserts.parameterTypes
}
