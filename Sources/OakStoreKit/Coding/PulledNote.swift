import OakModels

/// The columns of the notes upserted in a range of the change log, in change order.
public enum PulledNoteColumn: Int32, CaseIterable, Sendable {
    case seq, uuid, scientificName, sourceId, localNames, range, growthHabit, leaves, fruits, bark, twigs, buds
    case miscellaneous, url, createdAt, updatedAt, subgenus, section, subsection, complex
    case flowers, hardinessHabitat, isPreferred, fieldTimes

    private var expression: String {
        if self == .seq { return "c.seq" }
        return Self.taxonomyColumns.contains(self) ? "e.\(self)" : "ss.\(ColumnCoding.snakeCase("\(self)"))"
    }

    /// The columns' expressions, from `c` (the entry's `seq`), `ss` (its note's columns) and `e` (its species').
    package static let expressions = allCases.map(\.expression).joined(separator: ", ")

    /// The columns, from `change_log c`, `species_sources ss` (the note of an upsert, as the backend's `log`
    /// keeps it) and `oak_entries e`.
    package static func selection(_ log: NoteLog) -> String {
        "SELECT \(expressions)" + from(log)
    }

    /// What `selection` selects from.
    package static func from(_ log: NoteLog) -> String {
        """

        FROM change_log c
        \(log.noteOfEntry)
        JOIN oak_entries e ON e.scientific_name = ss.scientific_name
        """
    }

    /// The species' columns among these (`e`'s): a note's taxonomy.
    private static let taxonomyColumns: [Self] = [.subgenus, .section, .subsection, .complex]

    /// The names of `taxonomyColumns`, for a query over the species joined as `e` (`PostgresStore.pageNotesQuery`).
    package static let taxonomy = taxonomyColumns.map { "\($0)" }.joined(separator: ", ")
}

extension JSONOutput {
    @usableFromInline typealias NoteMember = ColumnMember<PulledNoteColumn>

    // A note's members (`Note` keys, sorted), around its `fields` and `taxonomy` objects.
    @usableFromInline static let noteBeforeFields: [NoteMember] = [
        NoteMember("createdAt", .createdAt, .timestamp), NoteMember("fieldTimes", .fieldTimes, .json),
    ]
    @usableFromInline static let noteFields: [NoteMember] = [
        NoteMember("acorn", .fruits), NoteMember("bark", .bark), NoteMember("buds", .buds), NoteMember("commonNames", .localNames, .joinedList),
        NoteMember("fieldNotes", .miscellaneous), NoteMember("form", .growthHabit), NoteMember("leaf", .leaves), NoteMember("rangeHabitat", .range),
        NoteMember("resources", .url), NoteMember("twigs", .twigs),
    ]
    @usableFromInline static let noteReference: [NoteMember] = [
        NoteMember("flowers", .flowers), NoteMember("hardinessHabitat", .hardinessHabitat),
    ]
    @usableFromInline static let noteBeforeTaxonomy: [NoteMember] = [
        NoteMember("id", .uuid, .uuid), NoteMember("isPreferred", .isPreferred, .boolean), NoteMember("scientificName", .scientificName),
        NoteMember("sourceId", .sourceId, .integer),
    ]
    @usableFromInline static let noteTaxonomy: [NoteMember] = [
        NoteMember("complex", .complex), NoteMember("section", .section, keepsNull: true), NoteMember("subgenus", .subgenus, keepsNull: true),
        NoteMember("subsection", .subsection),
    ]
    @usableFromInline static let noteAfterTaxonomy: [NoteMember] = [
        NoteMember("updatedAt", .updatedAt, .preciseTimestamp), NoteMember("version", .seq, .integer),
    ]

    /// A note from the columns of `PulledNoteColumn`.
    @inlinable
    public mutating func pulledNote(_ columns: some ColumnReader) throws {
        raw("{")
        try members(Self.noteBeforeFields, columns)
        raw(#","fields":{"#)
        try members(Self.noteFields, columns)
        raw("}")
        try members(Self.noteReference, columns, after: true)
        raw(",")
        try members(Self.noteBeforeTaxonomy, columns)
        raw(#","taxonomy":{"#)
        try members(Self.noteTaxonomy, columns)
        raw("},")
        try members(Self.noteAfterTaxonomy, columns)
        raw("}")
    }
}
