import Foundation
import OakModels
import OakStore
import OakStoreKit

/// What a push batch's new notes are checked against, read in two queries for the whole batch instead of one
/// per new note: which of the species and sources the batch names exist, and which note each (species, source)
/// pair it names already has. The batch's own inserts and deletes keep it current; nothing else can change it
/// meanwhile, since a push holds the write lock (`PostgresStore.write`).
struct PushNoteSlots {
    private struct Slot: Hashable, Codable {
        let species: String
        let source: Int
    }

    private var sources: Set<Int> = []
    private var notes: [Slot: String] = [:]

    /// Reads the slots of a batch, and its species (`PushBatch.addSpecies`).
    static func read(_ session: PostgresSession, for batch: inout PushBatch) async throws -> PushNoteSlots {
        var slots = PushNoteSlots()
        let sourceIDs = Set(batch.changes.compactMap { $0.note.map { $0.sourceId ?? Source.personalObservationID } })
        guard !sourceIDs.isEmpty else { return slots }
        for row in try await session.rows(Self.speciesAndSources, [.text(batch.speciesNamesJSON), .text(ColumnCoding.json(sourceIDs.sorted()))]) {
            if let id = row.integer("id") { slots.sources.insert(Int(id)) } else { batch.addSpecies(row) }
        }
        var wanted: Set<Slot> = []
        for change in batch.changes {
            guard let note = change.note, let species = batch.existingSpeciesName(note.scientificName) else { continue }
            wanted.insert(Slot(species: species, source: note.sourceId ?? Source.personalObservationID))
        }
        guard !wanted.isEmpty else { return slots }
        for row in try await session.rows(
            """
            SELECT ss.scientific_name, ss.source_id, ss.uuid FROM species_sources ss
            JOIN jsonb_to_recordset($1::jsonb) AS wanted(species text, source bigint)
                ON ss.scientific_name = wanted.species AND ss.source_id = wanted.source
            """, [.text(ColumnCoding.json(Array(wanted)))])
        {
            guard let species = row.text("scientific_name"), let source = row.integer("source_id"), let id = row.text("uuid") else { continue }
            slots.notes[Slot(species: species, source: Int(source))] = id
        }
        return slots
    }

    /// The species among the names of the JSON array `$1` (`PushBatch.speciesQuery`: `scientific_name`) and the
    /// sources among the ids of `$2` (`id`), in one round trip.
    private static let speciesAndSources = """
        SELECT scientific_name, NULL::bigint AS id FROM (\(PushBatch.speciesQuery(elements: "SELECT jsonb_array_elements_text($1::jsonb)"))) s
        UNION ALL
        SELECT NULL, id FROM sources WHERE id IN (SELECT jsonb_array_elements_text($2::jsonb)::bigint)
        """

    /// A new note's row (`NewNote`), checked against the slots as `PostgresStore.newNoteRecord` checks it against
    /// the tables.
    func newNoteRecord(id: UUID, name: String, storedName: String?, sourceId: Int?, fields: NoteFields, at time: Date) throws
        -> SpeciesSource
    {
        let record = try NewNote.record(id: id, name: name, storedName: storedName, sourceId: sourceId, fields: fields, at: time)
        try NewNote.checkPlace(
            of: record, sourceExists: sources.contains(record.sourceId),
            existing: notes[Slot(species: record.scientificName, source: record.sourceId)])
        return record
    }

    /// Records a note the batch inserted.
    mutating func filled(by record: SpeciesSource) {
        notes[Slot(species: record.scientificName, source: record.sourceId)] = record.uuid.wireString
    }

    /// Records a note the batch deleted.
    mutating func freed(by note: Note) {
        notes[Slot(species: note.scientificName, source: note.sourceId)] = nil
    }
}
