import Foundation

/// The kinds of record a pull can carry.
public enum SyncEntity: String, Codable, CaseIterable, Sendable {
    case notes, species, taxa, sources

    /// Parses `entities=notes,species`; empty or absent means all.
    public static func parseList(_ text: String?) throws -> [SyncEntity] {
        guard let text, !text.isEmpty else { return allCases }
        return try text.split(separator: ",").map { item in
            guard let entity = SyncEntity(rawValue: item.trimmingCharacters(in: .whitespaces)) else {
                throw OakError.invalid("entities", "must list: \(allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return entity
        }
    }
}

/// A change operation.
public enum SyncOperation: String, Codable, Sendable {
    case upsert, delete
}

/// One entry of a pull: an upsert with the full record, or a delete tombstone.
public struct SyncChange: Decodable, Sendable {
    public var entity: SyncEntity
    public var op: SyncOperation
    /// The entity's key: a note's id, a species' name, `level/name` for a taxon, a source's id.
    public var key: String
    /// The change's sequence number (a note's version).
    public var version: Int64
    /// The record, in the same JSON shape as its REST route; nil for a delete.
    public var record: SyncRecord?
    /// For a delete: when it happened (a device's clock never goes back before a delete it has seen).
    public var deletedAt: Date?

    public init(entity: SyncEntity, op: SyncOperation, key: String, version: Int64, record: SyncRecord?, deletedAt: Date? = nil) {
        self.entity = entity
        self.op = op
        self.key = key
        self.version = version
        self.record = record
        self.deletedAt = deletedAt
    }

    enum CodingKeys: String, CodingKey { case entity, op, key, version, record, deletedAt }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entity = try container.decode(SyncEntity.self, forKey: .entity)
        op = try container.decode(SyncOperation.self, forKey: .op)
        key = try container.decode(String.self, forKey: .key)
        version = try container.decode(Int64.self, forKey: .version)
        deletedAt = try container.decodeIfPresent(String.self, forKey: .deletedAt).flatMap(WireTime.parse)
        guard op == .upsert, try !container.decodeNil(forKey: .record) else {
            record = nil
            return
        }
        let recordDecoder = try container.superDecoder(forKey: .record)
        switch entity {
        case .notes: record = .note(try Note(from: recordDecoder))
        case .species: record = .species(try Species(from: recordDecoder))
        case .taxa: record = .taxon(try Taxon(from: recordDecoder))
        case .sources: record = .source(try Source(from: recordDecoder))
        }
    }
}

/// A pulled record of any entity; it encodes as the record itself (clients keep catalog records as JSON).
public enum SyncRecord: Encodable, Sendable {
    case note(Note)
    case species(Species)
    case taxon(Taxon)
    case source(Source)

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .note(let value): try value.encode(to: encoder)
        case .species(let value): try value.encode(to: encoder)
        case .taxon(let value): try value.encode(to: encoder)
        case .source(let value): try value.encode(to: encoder)
        }
    }
}

/// A pulled change that could not be read, kept aside with what is known of it, while the rest of its
/// page is applied.
public struct SetAsideChange: Hashable, Sendable {
    /// The entity, as the server named it (possibly one this client does not know).
    public var entity: String
    /// The entity's key, or "" when even that could not be read.
    public var key: String
    /// Why it could not be read.
    public var reason: String

    public init(entity: String, key: String, reason: String) {
        self.entity = entity
        self.key = key
        self.reason = reason
    }
}

/// Why a pull cursor is answered 410 (`details.reason` of the `GONE` error). It tells a device what to do
/// with the synced notes a new snapshot does not hold.
public enum CursorRefusal: String, Sendable {
    /// Older than the change history the server keeps: deletes it has not seen were forgotten, so a synced
    /// note the server lacks was deleted there.
    case expired
    /// Ahead of the server's history: the database was restored from a backup, or lost its last writes.
    case ahead
    /// Issued by another database: the server now runs on a different one.
    case otherDatabase = "other_database"

    /// The error that answers a cursor refused for this reason, with `details` besides the reason.
    public func error(_ message: String, details: [String: JSONValue] = [:]) -> OakError {
        OakError(.gone, message, details: details.merging(["reason": .string(rawValue)]) { _, reason in reason })
    }

    /// The reason of a 410 answer, read from its error's details.
    public init?(_ error: OakError) {
        guard error.code == .gone, case .string(let reason)? = error.details?["reason"] else { return nil }
        self.init(rawValue: reason)
    }

    /// Whether the server lost changes the device saw, so that what a new snapshot lacks, or holds in an older
    /// form, is to be sent to it again rather than taken from it. Only an expired cursor says the server forgot
    /// deletes instead (what it lacks was deleted there); after a restore, on another database, or for no
    /// stated reason, what the server lacks is what it lost.
    public static func serverLostHistory(_ reason: CursorRefusal?) -> Bool {
        reason != .expired
    }
}

/// A page of a pull: changes in sequence order, the cursor to pull from next, and whether more wait.
/// The server writes it directly as JSON (see `SQLiteStore.pull`); clients decode it. A change that cannot
/// be read does not fail the page: it goes to `setAside` and the others are read.
public struct PullResponse: Decodable, Sendable {
    public var changes: [SyncChange]
    public var cursor: String
    public var hasMore: Bool
    /// The changes of this page that could not be read.
    public var setAside: [SetAsideChange]

    public init(changes: [SyncChange], cursor: String, hasMore: Bool, setAside: [SetAsideChange] = []) {
        self.changes = changes
        self.cursor = cursor
        self.hasMore = hasMore
        self.setAside = setAside
    }

    enum CodingKeys: String, CodingKey { case changes, cursor, hasMore }

    /// The keys a change is identified by, read loosely for one that cannot be read whole.
    private enum IdentityKeys: String, CodingKey { case entity, key }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        cursor = try container.decode(String.self, forKey: .cursor)
        hasMore = try container.decode(Bool.self, forKey: .hasMore)
        changes = []
        setAside = []
        var list = try container.nestedUnkeyedContainer(forKey: .changes)
        while !list.isAtEnd {
            let element = try list.superDecoder()
            do {
                changes.append(try SyncChange(from: element))
            } catch {
                let identity = try? element.container(keyedBy: IdentityKeys.self)
                setAside.append(
                    SetAsideChange(
                        entity: (try? identity?.decode(String.self, forKey: .entity)) ?? "",
                        key: (try? identity?.decode(String.self, forKey: .key)) ?? "",
                        reason: Self.describe(error)))
            }
        }
    }

    /// A decoding error in a few words: where, and what was wrong.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        let (path, what): ([any CodingKey], String) =
            switch error {
            case .typeMismatch(let type, let context): (context.codingPath, "expected \(type)")
            case .valueNotFound(let type, let context): (context.codingPath, "expected \(type), found null")
            case .keyNotFound(let key, let context): (context.codingPath + [key], "missing")
            case .dataCorrupted(let context): (context.codingPath, context.debugDescription)
            @unknown default: ([], String(describing: error))
            }
        // The path inside the change: after `changes` and the change's index.
        let field = path.drop(while: { $0.intValue == nil }).dropFirst().map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            .joined(separator: ".")
        return field.isEmpty ? what : "\(field): \(what)"
    }
}

/// The body of a note inside a pushed change.
public struct PushedNote: Codable, Hashable, Sendable {
    public var scientificName: String
    public var sourceId: Int?
    public var fields: NoteFields
    /// When each field was last written on the device, for the fields not written at the change's `updatedAt`
    /// (`TimedFields`); none (an older client) means every field was written at `updatedAt`.
    public var fieldTimes: [NoteFields.Field: Date]

    public init(scientificName: String, sourceId: Int? = nil, fields: NoteFields, fieldTimes: [NoteFields.Field: Date] = [:]) {
        self.scientificName = scientificName
        self.sourceId = sourceId
        self.fields = fields
        self.fieldTimes = fieldTimes
    }

    enum CodingKeys: String, CodingKey { case scientificName, sourceId, fields, fieldTimes }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        scientificName = try container.decode(String.self, forKey: .scientificName)
        sourceId = try container.decodeIfPresent(Int.self, forKey: .sourceId)
        fields = try container.decode(NoteFields.self, forKey: .fields)
        let times = try container.decodeIfPresent([String: String].self, forKey: .fieldTimes) ?? [:]
        // A time that cannot be read is refused with the change's push (400), not taken as the change's own.
        if let unreadable = times.first(where: { WireTime.parse($0.value) == nil }) {
            throw DecodingError.dataCorruptedError(
                forKey: .fieldTimes, in: container, debugDescription: "fieldTimes.\(unreadable.key) is not an RFC 3339 time")
        }
        fieldTimes = FieldTimesJSON.decode(times)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scientificName, forKey: .scientificName)
        try container.encodeIfPresent(sourceId, forKey: .sourceId)
        try container.encode(fields, forKey: .fields)
        try FieldTimesJSON.encode(fieldTimes, into: &container, forKey: .fieldTimes)
    }
}

/// One note change a client pushes.
public struct PushChange: Codable, Hashable, Sendable {
    public var id: UUID
    public var op: SyncOperation
    /// The server version the client's edit was based on; nil or 0 for a note the client created.
    public var baseVersion: Int64?
    /// When the user made the change.
    public var updatedAt: Date
    /// The note's full content, for an upsert.
    public var note: PushedNote?

    public init(id: UUID, op: SyncOperation, baseVersion: Int64?, updatedAt: Date, note: PushedNote?) {
        self.id = id
        self.op = op
        self.baseVersion = baseVersion
        self.updatedAt = updatedAt
        self.note = note
    }

    enum CodingKeys: String, CodingKey { case id, op, baseVersion, updatedAt, note }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeID(forKey: .id)
        op = try container.decode(SyncOperation.self, forKey: .op)
        baseVersion = try container.decodeIfPresent(Int64.self, forKey: .baseVersion)
        updatedAt = try container.decodeTimestamp(forKey: .updatedAt)
        note = try container.decodeIfPresent(PushedNote.self, forKey: .note)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.wireString, forKey: .id)
        try container.encode(op, forKey: .op)
        try container.encodeNullable(baseVersion, forKey: .baseVersion)
        try container.encode(WireTime.formatPrecise(updatedAt), forKey: .updatedAt)
        try container.encodeNullable(note, forKey: .note)
    }
}

/// A push request: `{"changes": [...], "cursor": "..."}`, at most `maxChanges`.
public struct PushRequest: Codable, Sendable {
    public var changes: [PushChange]
    /// The device's pull cursor, naming the history its base versions come from; a cursor of another database
    /// or ahead of the server's log is answered 410 with a `reason`, and nothing is applied. Optional: a
    /// client that sends none is not checked.
    public var cursor: String?

    public init(changes: [PushChange], cursor: String? = nil) {
        self.changes = changes
        self.cursor = cursor
    }

    /// The largest batch accepted; larger ones answer 413.
    public static let maxChanges = 500
}

/// What happened to one pushed change.
public enum PushStatus: String, Codable, Sendable {
    /// The change is now the server's state.
    case applied
    /// The server's copy won; it is returned (nil if the server deleted the note).
    case stale
    /// The change is invalid; the error says why.
    case rejected
}

/// The result of one pushed change.
public struct PushResult: Codable, Hashable, Sendable {
    public var id: UUID
    public var status: PushStatus
    /// The note's server version after the push.
    public var version: Int64?
    /// The server's note: the winner on `stale`, the stored note on `applied` (nil when deleted).
    public var note: Note?
    /// Why the change was rejected.
    public var error: OakError?
    /// When the note is deleted on the server (no `note`): the time of the delete its tombstone records, so a
    /// device's clock never goes back before a delete it has learned of.
    public var deletedAt: Date?

    public init(id: UUID, status: PushStatus, version: Int64? = nil, note: Note? = nil, error: OakError? = nil, deletedAt: Date? = nil) {
        self.id = id
        self.status = status
        self.version = version
        self.note = note
        self.error = error
        self.deletedAt = deletedAt
    }

    enum CodingKeys: String, CodingKey { case id, status, version, note, error, deletedAt }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeID(forKey: .id)
        status = try container.decode(PushStatus.self, forKey: .status)
        version = try container.decodeIfPresent(Int64.self, forKey: .version)
        note = try container.decodeIfPresent(Note.self, forKey: .note)
        error = try container.decodeIfPresent(OakError.self, forKey: .error)
        deletedAt = try container.decodeIfPresent(String.self, forKey: .deletedAt).flatMap(WireTime.parse)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(deletedAt.map(WireTime.formatPrecise), forKey: .deletedAt)
        try container.encode(id.wireString, forKey: .id)
        try container.encode(status, forKey: .status)
        try container.encodeNullable(version, forKey: .version)
        try container.encodeNullable(note, forKey: .note)
        try container.encodeNullable(error, forKey: .error)
    }
}

/// The answer of a push: one result per change, in order.
public struct PushResponse: Decodable, Sendable {
    public var results: [PushResult]

    public init(results: [PushResult]) {
        self.results = results
    }
}
