import Foundation
import OakModels
import OakStore
import OakStoreKit
import PostgresNIO

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

    /// The parameters `$3`–`$6` of `query`: the names the batch's notes may be stored under
    /// (`PushBatch.speciesNames`), the sources they name, and each note's source paired with every name its species
    /// may be stored under (which of them is stored is not known before the query), as a list of names and one of
    /// sources; all as PostgreSQL arrays.
    static func appendParameters(of batch: PushBatch, to binds: inout PostgresBindings) {
        var sourceIDs: Set<Int> = []
        var pairs: Set<Slot> = []
        for case let note? in batch.changes.lazy.map(\.note) {
            let source = note.sourceId ?? Source.personalObservationID
            sourceIDs.insert(source)
            for spelling in batch.storedSpellings(of: note.scientificName) { pairs.insert(Slot(species: spelling, source: source)) }
        }
        binds.append(batch.speciesNames)
        binds.append(sourceIDs.sorted())
        let pairList = Array(pairs)
        binds.append(pairList.map(\.species))
        binds.append(pairList.map(\.source))
    }

    /// The species among the names of the array `$3` (`slot_species`), the sources among the ids of `$4`
    /// (`slot_source`), and the note of each pair of `$5` and `$6` that has one (all three columns, with
    /// `slot_note`). Only the pairs whose name is a species' are looked up: a name has up to four spellings, and
    /// most are none. A pair has at most one note (`UNIQUE (scientific_name, source_id)`); the `LIMIT` keeps its
    /// lookup one probe of that index: knowing the arrays' lengths, the planner otherwise joins the pairs with the
    /// whole table first.
    static let query = """
        WITH species AS (\(PushBatch.speciesQuery(elements: "SELECT unnest($3)")))
        SELECT scientific_name AS slot_species, NULL::bigint AS slot_source, NULL::text AS slot_note FROM species
        UNION ALL
        SELECT NULL, id, NULL FROM sources WHERE id IN (SELECT unnest($4))
        UNION ALL
        SELECT ss.scientific_name, ss.source_id, ss.uuid
        FROM unnest($5, $6) AS wanted(species, source)
        JOIN species ON species.scientific_name = wanted.species
        CROSS JOIN LATERAL (
            SELECT scientific_name, source_id, uuid FROM species_sources
            WHERE scientific_name = wanted.species AND source_id = wanted.source LIMIT 1
        ) ss
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
