import Foundation
import GRDB
import OakModels

/// Where a local note stands with the server.
public enum NoteSyncStatus: String, Codable, Sendable {
    /// The note equals the server's copy.
    case synced
    /// A local create or edit waits to be pushed.
    case pendingUpload
    /// A local delete waits to be pushed; the note is hidden from lists.
    case pendingDelete
}

/// A note as the device holds it: the server's fields plus local sync state. Each field is a column of
/// the device's `notes` table (named as the notes API names it), so writing one encodes no JSON.
public struct LocalNote: Hashable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "notes"

    public var id: UUID
    public var scientificName: String
    public var sourceId: Int
    public var taxonomy: NoteTaxonomy
    public var fields: NoteFields
    /// The source's data that is not a note field (reference notes from other sources have it).
    public var reference: NoteReference
    public var createdAt: Date
    /// When the note was last written, locally or on the server (millisecond precision).
    public var updatedAt: Date
    /// The server version this note's state is based on; 0 while the server has never confirmed it.
    public var serverVersion: Int64
    /// Incremented by every local write; lets the engine notice edits made while a push was in flight.
    public var localVersion: Int64
    public var syncStatus: NoteSyncStatus
    /// Why the server rejected the pending change; it is retried only after the user edits the note.
    public var lastError: OakError?
    /// When each field was last written, for those not written at `updatedAt` (`TimedFields`).
    public var fieldTimes: [NoteFields.Field: Date]

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id
        case scientificName = "scientific_name"
        case sourceId = "source_id"
        case subgenus, section, subsection, complex, flowers
        case hardinessHabitat = "hardiness_habitat"
        case isPreferred = "is_preferred"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case serverVersion = "server_version"
        case localVersion = "local_version"
        case syncStatus = "sync_status"
        case lastError = "last_error"
        case fieldTimes = "field_times"
    }

    /// A note that equals the server's copy.
    init(server note: Note) {
        id = note.id
        scientificName = note.scientificName
        sourceId = note.sourceId
        taxonomy = note.taxonomy
        fields = note.fields
        reference = note.reference
        createdAt = note.createdAt
        updatedAt = note.updatedAt
        serverVersion = note.version
        localVersion = 0
        syncStatus = .synced
        lastError = nil
        fieldTimes = note.fieldTimes
    }

    public init(row: Row) throws {
        id = row[CodingKeys.id]
        scientificName = row[CodingKeys.scientificName]
        sourceId = row[CodingKeys.sourceId]
        taxonomy = NoteTaxonomy(
            subgenus: row[CodingKeys.subgenus], section: row[CodingKeys.section], subsection: row[CodingKeys.subsection],
            complex: row[CodingKeys.complex])
        fields = NoteFields()
        for field in NoteFields.Field.allCases {
            fields[field] = row[field.rawValue]
        }
        reference = NoteReference(
            flowers: row[CodingKeys.flowers], hardinessHabitat: row[CodingKeys.hardinessHabitat], isPreferred: row[CodingKeys.isPreferred])
        createdAt = row[CodingKeys.createdAt]
        updatedAt = row[CodingKeys.updatedAt]
        serverVersion = row[CodingKeys.serverVersion]
        localVersion = row[CodingKeys.localVersion]
        syncStatus = NoteSyncStatus(rawValue: row[CodingKeys.syncStatus]) ?? .pendingUpload
        lastError = (row[CodingKeys.lastError] as String?).flatMap { try? JSONDecoder().decode(OakError.self, from: Data($0.utf8)) }
        fieldTimes = FieldTimesJSON.times(row[CodingKeys.fieldTimes])
    }

    public func encode(to container: inout PersistenceContainer) throws {
        for (column, value) in zip(Self.columnNames, try columnValues) {
            container[column] = value
        }
    }

    /// Every column of the `notes` table, in the order of `columnValues`.
    static let columnNames: [String] =
        [CodingKeys.id, .scientificName, .sourceId, .subgenus, .section, .subsection, .complex].map(\.rawValue)
        + NoteFields.Field.allCases.map(\.rawValue)
        + [
            CodingKeys.flowers, .hardinessHabitat, .isPreferred, .createdAt, .updatedAt, .serverVersion, .localVersion, .syncStatus, .lastError,
            .fieldTimes,
        ]
        .map(\.rawValue)

    /// The note's value of each of `columnNames`. Dates are written as GRDB writes them, without its `DateFormatter`.
    var columnValues: [DatabaseValue] {
        get throws {
            var values: [DatabaseValue] = [
                id.databaseValue, scientificName.databaseValue, sourceId.databaseValue, taxonomy.subgenus.databaseValue,
                taxonomy.section.databaseValue, taxonomy.subsection.databaseValue, taxonomy.complex.databaseValue,
            ]
            values.reserveCapacity(Self.columnNames.count)
            for field in NoteFields.Field.allCases {
                values.append(fields[field].databaseValue)
            }
            values += [
                reference.flowers.databaseValue, reference.hardinessHabitat.databaseValue, reference.isPreferred.databaseValue,
                WireTime.formatSQL(createdAt).databaseValue, WireTime.formatSQL(updatedAt).databaseValue, serverVersion.databaseValue,
                localVersion.databaseValue, syncStatus.rawValue.databaseValue,
                try lastError.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }.databaseValue,
                FieldTimesJSON.text(fieldTimes).databaseValue,
            ]
            return values
        }
    }

    /// The note as the notes API shows it (its version is the server's).
    public var note: Note {
        Note(
            id: id, scientificName: scientificName, taxonomy: taxonomy, fields: fields, sourceId: sourceId, createdAt: createdAt,
            updatedAt: updatedAt, version: serverVersion, reference: reference, fieldTimes: fieldTimes)
    }

    /// The note's fields with their times, as the sync rule weighs them.
    var timedFields: TimedFields {
        TimedFields(fields: fields, fieldTimes: fieldTimes, writtenAt: updatedAt)
    }

    /// Takes fields with their times (a local edit, or a merge with the server's copy).
    mutating func take(_ timed: TimedFields) {
        fields = timed.fields
        fieldTimes = timed.fieldTimes
        updatedAt = timed.writtenAt
    }

    /// Whether the server rejected this note's pending change.
    public var isRejected: Bool { lastError != nil && syncStatus != .synced }

    /// Takes the server's copy: the note becomes synced. The local version keeps counting.
    mutating func adopt(_ server: Note) {
        let counter = localVersion
        self = LocalNote(server: server)
        localVersion = counter
    }

    /// The change that pushes this note's pending state.
    var pushChange: PushChange {
        PushChange(
            id: id, op: syncStatus == .pendingDelete ? .delete : .upsert, baseVersion: serverVersion == 0 ? nil : serverVersion,
            updatedAt: updatedAt,
            note: syncStatus == .pendingDelete
                ? nil : PushedNote(scientificName: scientificName, sourceId: sourceId, fields: fields, fieldTimes: fieldTimes))
    }
}

extension LocalNote {
    /// The note with this id. Read through a statement the connection keeps: GRDB's `fetchOne(_:key:)` writes and
    /// compiles its query on every call, and a sync looks notes up one by one.
    static func fetchOne(_ db: Database, id: UUID) throws -> LocalNote? {
        try fetchOne(db.cachedStatement(sql: "SELECT * FROM notes WHERE id = ?"), arguments: [id])
    }

    /// The notes with these ids (those the device holds), through a statement the connection keeps per count of
    /// ids (a push batch's: a few sizes at most).
    static func fetchAll(_ db: Database, ids: [UUID]) throws -> [LocalNote] {
        guard !ids.isEmpty else { return [] }
        let sql = "SELECT * FROM notes WHERE id IN (\(databaseQuestionMarks(count: ids.count)))"
        return try fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(ids))
    }

    /// The note of a species and source, if the device holds one (deleted here or not).
    static func fetchOne(_ db: Database, species name: String, sourceId: Int) throws -> LocalNote? {
        try fetchOne(db.cachedStatement(sql: "SELECT * FROM notes WHERE scientific_name = ? AND source_id = ?"), arguments: [name, sourceId])
    }
}
