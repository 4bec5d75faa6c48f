import Foundation
import OakModels
import OakStore
import OakStoreKit

/// What a push batch's new notes are checked against, read with the batch's other state in one query
/// (`PostgresStore.pushBatch`) instead of one per new note: which of the species and sources the batch names
/// exist, and which note each (species, source) pair it names already has. The batch's own inserts and deletes
/// keep it current; nothing else can change it meanwhile, since a push holds the write lock
/// (`PostgresStore.write`).
struct PushNoteSlots {
    private struct Slot: Hashable {
        let species: String
        let source: Int
    }

    private var sources: Set<Int> = []
    private var notes: [Slot: String] = [:]

    /// The parameters `$2`–`$4` of `query`: the names the batch's notes may be stored under
    /// (`PushBatch.speciesNamesJSON`), the sources they name, and each note's source paired with every name its
    /// species may be stored under (which of them is stored is not known before the query).
    static func parameters(of batch: PushBatch) -> [StoredValue] {
        var sourceIDs: Set<Int> = []
        var pairs: Set<Slot> = []
        for case let note? in batch.changes.lazy.map(\.note) {
            let source = note.sourceId ?? Source.personalObservationID
            sourceIDs.insert(source)
            for spelling in batch.storedSpellings(of: note.scientificName) { pairs.insert(Slot(species: spelling, source: source)) }
        }
        // Written by hand as `[name, "source"]` lists: with `JSONEncoder` this would be a tenth of the server's CPU in a push.
        return [
            .text(batch.speciesNamesJSON), .text(ColumnCoding.json(sourceIDs.sorted().map(String.init))),
            .text(ColumnCoding.json(pairs.map { [$0.species, String($0.source)] })),
        ]
    }

    /// The species among the names of the JSON array `$2` (`slot_species`), the sources among the ids of `$3`
    /// (`slot_source`), and the note of each pair of `$4` that has one (all three columns, with `slot_note`). Only
    /// the pairs whose name is a species' are looked up: a name has up to four spellings, and most are none.
    static let query = """
        WITH species AS (\(PushBatch.speciesQuery(elements: "SELECT jsonb_array_elements_text($2::jsonb)")))
        SELECT scientific_name AS slot_species, NULL::bigint AS slot_source, NULL::text AS slot_note FROM species
        UNION ALL
        SELECT NULL, id, NULL FROM sources WHERE id IN (SELECT jsonb_array_elements_text($3::jsonb)::bigint)
        UNION ALL
        SELECT ss.scientific_name, ss.source_id, ss.uuid
        FROM (SELECT value->>0 AS species, (value->>1)::bigint AS source FROM jsonb_array_elements($4::jsonb)) wanted
        JOIN species ON species.scientific_name = wanted.species
        JOIN species_sources ss ON ss.scientific_name = wanted.species AND ss.source_id = wanted.source
        """

    /// Takes a row of `query` (a row without its columns is none of its rows); a species goes to the batch
    /// (`PushBatch.addSpecies`).
    mutating func take(_ row: some StoredRow, into batch: inout PushBatch) {
        let species = row.text("slot_species")
        let source = row.integer("slot_source")
        if let id = row.text("slot_note"), let species, let source {
            notes[Slot(species: species, source: Int(source))] = id
        } else if let species {
            batch.addSpecies(named: species)
        } else if let source {
            sources.insert(Int(source))
        }
    }

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
