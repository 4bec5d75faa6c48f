import Foundation

/// A note's fields with the time each was last written, and the time of the latest write to the note: what
/// the sync rule weighs field by field (`SyncRules.merge`). Times are hybrid logical times to the millisecond.
///
/// Stored and sent compressed (`fieldTimes`): a field written at the note's own time (`writtenAt`, the note's
/// `updatedAt`) is not named, so a note written whole (by the REST routes, an older client, another program)
/// names none.
public struct TimedFields: Hashable, Sendable {
    public private(set) var fields: NoteFields
    /// The time of every field.
    private var times: [NoteFields.Field: Date]
    /// The latest write to the note; no field's time is later.
    public private(set) var writtenAt: Date

    /// `fields` written at `writtenAt`, but for those `fieldTimes` names (none later than `writtenAt`).
    public init(fields: NoteFields, fieldTimes: [NoteFields.Field: Date] = [:], writtenAt: Date) {
        self.fields = fields
        self.writtenAt = WireTime.milliseconds(writtenAt)
        var times: [NoteFields.Field: Date] = [:]
        for field in NoteFields.Field.allCases {
            times[field] = min(fieldTimes[field].map(WireTime.milliseconds) ?? self.writtenAt, self.writtenAt)
        }
        self.times = times
    }

    /// When `field` was last written.
    public func time(of field: NoteFields.Field) -> Date {
        times[field] ?? writtenAt
    }

    /// The times that differ from `writtenAt`: what is stored and sent.
    public var fieldTimes: [NoteFields.Field: Date] {
        times.filter { $0.value != writtenAt }
    }

    /// Writes one field at `time`; the note's latest write moves to `time` if that is later.
    public mutating func write(_ field: NoteFields.Field, _ value: String?, at time: Date) {
        let time = WireTime.milliseconds(time)
        fields[field] = value
        times[field] = time
        writtenAt = max(writtenAt, time)
    }

    /// The same note with its latest write at `time` at the earliest (the time of a change that wrote no field,
    /// a delete's); the fields keep their own times.
    public func written(at time: Date) -> TimedFields {
        var note = self
        note.writtenAt = max(writtenAt, WireTime.milliseconds(time))
        return note
    }
}

extension SyncRules {
    /// Per-field last write wins: each field keeps the value written later; on equal times the greater text
    /// (no text is the least), so every replica merges to the same note whatever the order of arrival. The note
    /// was last written at the later of the two times. Commutative, associative and idempotent.
    public static func merge(_ note: TimedFields, _ other: TimedFields) -> TimedFields {
        var merged = note
        for field in NoteFields.Field.allCases {
            let (time, otherTime) = (note.time(of: field), other.time(of: field))
            let (value, otherValue) = (note.fields[field], other.fields[field])
            if otherTime > time || (otherTime == time && (otherValue ?? "") > (value ?? "")) {
                merged.write(field, otherValue, at: otherTime)
            }
        }
        return merged.written(at: other.writtenAt)
    }

    /// What a delete at `time` leaves of a note: nothing (nil, the note is deleted) unless a write was made after
    /// it; then the note, with every field written at or before the delete cleared. A delete and a write at the
    /// same time: the delete wins, so a cleared field is written a tick after the delete: it beats a write made
    /// at the delete's time arriving later (which a tie would give to its text), and loses to one made after.
    public static func afterDelete(at time: Date, of note: TimedFields) -> TimedFields? {
        let time = WireTime.milliseconds(time)
        guard note.writtenAt > time else { return nil }
        var left = note
        for field in NoteFields.Field.allCases where note.time(of: field) <= time {
            left.write(field, nil, at: WireTime.milliseconds(time.addingTimeInterval(tick)))
        }
        return left
    }

    /// A note's fields edited to `fields` at `time`: the fields that changed are written at `time`, the others
    /// keep their own times (so an edit of one field on one device and of another on a second both stay).
    public static func edit(_ note: TimedFields, to fields: NoteFields, at time: Date) -> TimedFields {
        var edited = note.written(at: time)
        for field in NoteFields.Field.allCases where note.fields[field] != fields[field] {
            edited.write(field, fields[field], at: time)
        }
        return edited
    }

    /// A change made on the note `base` (a fast-forward): every field it changes, and the change itself, is
    /// timed after `base`'s latest write at the earliest (`hybridTime`), however slow the clock that stamped it;
    /// a change that changes no field is left as it is. Nil `base`: made on a delete at `deletedAt`, which every
    /// field of the change follows.
    public static func made(_ change: TimedFields, on base: TimedFields?, deletedAt: Date? = nil) -> TimedFields {
        guard let after = base?.writtenAt ?? deletedAt else { return change }
        let changed = NoteFields.Field.allCases.filter { base == nil || base?.fields[$0] != change.fields[$0] }
        guard !changed.isEmpty else { return change }
        var made = change.written(at: hybridTime(change.writtenAt, after: after))
        for field in changed {
            made.write(field, change.fields[field], at: hybridTime(change.time(of: field), after: after))
        }
        return made
    }
}

extension Note {
    /// The note's fields with their times, as the sync rule weighs them.
    public var timedFields: TimedFields {
        TimedFields(fields: fields, fieldTimes: fieldTimes, writtenAt: updatedAt)
    }
}

/// The JSON of `fieldTimes` on the wire and in the database: an object of field names (the notes API's) and
/// times to the millisecond (`{"leaf": "2025-01-10T14:20:00.123Z"}`). Unknown names are ignored, so a newer
/// field set reads on an older client.
public enum FieldTimesJSON {
    /// The object's text, or nil when no field is named.
    public static func text(_ times: [NoteFields.Field: Date]) -> String? {
        guard !times.isEmpty else { return nil }
        let members = NoteFields.Field.allCases.compactMap { field in
            times[field].map { #""\#(field.rawValue)":"\#(WireTime.formatPrecise($0))""# }
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// The times an object's text names (nil or unreadable text names none). Text in `text(_:)`'s own layout is
    /// read by hand (every stored note's is: a decoder per row was a visible cost of reading notes); any other
    /// JSON object of strings is decoded.
    public static func times(_ text: String?) -> [NoteFields.Field: Date] {
        guard let text else { return [:] }
        if let times = timesInOwnLayout(text) { return times }
        guard let object = try? JSONDecoder().decode([String: String].self, from: Data(text.utf8)) else { return [:] }
        return decode(object)
    }

    /// `{"name":"time",…}` with no spaces or escapes, as `text(_:)` writes it; nil for anything else.
    private static func timesInOwnLayout(_ text: String) -> [NoteFields.Field: Date]? {
        var utf8 = Substring(text).utf8
        /// The bytes up to the next quote, after an opening quote; nil when there is none or an escape comes first.
        func quoted() -> Substring? {
            guard utf8.first == UInt8(ascii: "\""), let end = utf8.dropFirst().firstIndex(of: UInt8(ascii: "\"")) else { return nil }
            let value = utf8[utf8.index(after: utf8.startIndex)..<end]
            guard !value.contains(UInt8(ascii: "\\")) else { return nil }
            utf8 = utf8[utf8.index(after: end)...]
            return Substring(value)
        }
        guard utf8.popFirst() == UInt8(ascii: "{"), utf8.popLast() == UInt8(ascii: "}") else { return nil }
        var times: [NoteFields.Field: Date] = [:]
        var first = true
        while !utf8.isEmpty {
            if !first, utf8.popFirst() != UInt8(ascii: ",") { return nil }
            first = false
            guard let name = quoted(), utf8.popFirst() == UInt8(ascii: ":"), let value = quoted() else { return nil }
            if let field = NoteFields.Field(rawValue: String(name)), let time = WireTime.parse(String(value)) { times[field] = time }
        }
        return times
    }

    /// The times of a decoded object, by field.
    public static func decode(_ object: [String: String]) -> [NoteFields.Field: Date] {
        var times: [NoteFields.Field: Date] = [:]
        for (name, text) in object {
            if let field = NoteFields.Field(rawValue: name), let time = WireTime.parse(text) { times[field] = time }
        }
        return times
    }

    /// Encodes `times` as the object, into `container` under `key`, unless it names none.
    public static func encode<Key: CodingKey>(_ times: [NoteFields.Field: Date], into container: inout KeyedEncodingContainer<Key>, forKey key: Key)
        throws
    {
        guard !times.isEmpty else { return }
        try container.encode(Dictionary(uniqueKeysWithValues: times.map { ($0.key.rawValue, WireTime.formatPrecise($0.value)) }), forKey: key)
    }
}
