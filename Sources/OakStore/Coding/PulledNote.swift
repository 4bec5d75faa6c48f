import OakModels

/// The columns of the notes upserted in a range of the change log, in change order.
package enum PulledNoteColumn: Int32, CaseIterable {
    case seq, uuid, scientificName, sourceId, localNames, range, growthHabit, leaves, fruits, bark, twigs, buds
    case miscellaneous, url, createdAt, updatedAt, subgenus, section, subsection, complex
    case flowers, hardinessHabitat, isPreferred

    private var expression: String {
        switch self {
        case .seq: "c.seq"
        case .subgenus, .section, .subsection, .complex: "e.\(self)"
        default: "ss.\(ColumnCoding.snakeCase("\(self)"))"
        }
    }

    /// The columns, from `change_log c`, `species_sources ss` and `oak_entries e` (joined by the backend's query).
    package static let selection = """
        SELECT \(allCases.map(\.expression).joined(separator: ", "))
        FROM change_log c
        JOIN species_sources ss ON ss.uuid = c.entity_key
        JOIN oak_entries e ON e.scientific_name = ss.scientific_name
        """
}

extension JSONOutput {
    private typealias Member = ColumnMember<PulledNoteColumn>

    // A note's members (`Note` keys, sorted), around its `fields` and `taxonomy` objects.
    private static let noteBeforeFields: [Member] = [Member("createdAt", .createdAt, .timestamp)]
    private static let noteFields: [Member] = [
        Member("acorn", .fruits), Member("bark", .bark), Member("buds", .buds), Member("commonNames", .localNames, .joinedList),
        Member("fieldNotes", .miscellaneous), Member("form", .growthHabit), Member("leaf", .leaves), Member("rangeHabitat", .range),
        Member("resources", .url), Member("twigs", .twigs),
    ]
    private static let noteReference: [Member] = [
        Member("flowers", .flowers), Member("hardinessHabitat", .hardinessHabitat),
    ]
    private static let noteBeforeTaxonomy: [Member] = [
        Member("id", .uuid, .uuid), Member("isPreferred", .isPreferred, .boolean), Member("scientificName", .scientificName),
        Member("sourceId", .sourceId, .integer),
    ]
    private static let noteTaxonomy: [Member] = [
        Member("complex", .complex), Member("section", .section, keepsNull: true), Member("subgenus", .subgenus, keepsNull: true),
        Member("subsection", .subsection),
    ]
    private static let noteAfterTaxonomy: [Member] = [Member("updatedAt", .updatedAt, .timestamp), Member("version", .seq, .integer)]

    /// A note from the columns of `PulledNoteColumn`.
    package mutating func pulledNote(_ columns: some ColumnReader) throws {
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
