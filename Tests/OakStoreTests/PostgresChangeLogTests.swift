import Foundation
import OakModels
import OakStore
import OakStoreKit
import OakTestSupport
import Testing

/// Notes other programs (psql, scripts) change in the database are logged as the server's own writes are: each
/// change numbered from the change log's head, one entry a key, an id gone a tombstone (`oak_logged_notes` and
/// `oak_log_change`, migration v7; `oak_logged_note_inserts`, v8), so a client's pull and this server's caches see
/// them.
@Suite(
    "PostgreSQL: the change log of notes other programs change", .timeLimit(.minutes(1)),
    .needsPostgres)
struct PostgresChangeLogTests {
    /// A PostgreSQL store with one note of alba, and the store's database URL.
    private func storeWithNote() async throws -> (store: any ServedStore, url: String, note: Note) {
        let (store, url) = try await temporaryStore(.postgres)
        let note = try await store.createNote(NoteInput(scientificName: "alba", fields: NoteFieldsPatch(replacingWith: NoteFields(leaf: "first"))))
        return (store, url, note)
    }

    /// The change log's head.
    private func head(_ url: String) async throws -> Int {
        try await postgresCount(url: url, "SELECT seq FROM change_log_head", [])
    }

    /// The key's one entry in the change log: its number when it is of `op` (a tombstone with its time), else 0.
    private func entry(_ url: String, _ key: String, _ op: String) async throws -> Int {
        #expect(try await postgresCount(url: url, "SELECT COUNT(*) FROM change_log WHERE entity = 'notes' AND entity_key = ?", [key]) == 1)
        return try await postgresCount(
            url: url,
            """
            SELECT seq FROM change_log WHERE entity = 'notes' AND entity_key = ? AND op = ?
                AND (deleted_at IS NOT NULL) = (op = 'delete') AND changed_at LIKE '20%Z'
            """, [key, op])
    }

    @Test(
        "a note edited, given a new id and deleted by another program moves the head once a change and leaves one entry a key, with the newest number; the ids gone are tombstones"
    )
    func otherProgramsNoteChangesAreLogged() async throws {
        let (store, url, note) = try await storeWithNote()
        let (oldID, newID) = (note.id.wireString, UUID().wireString)
        let start = try await head(url)
        #expect(start == Int(note.version))

        try await postgresExecute(url: url, "UPDATE species_sources SET leaves = 'edited' WHERE uuid = ?", [oldID])
        #expect(try await head(url) == start + 1)
        #expect(try await entry(url, oldID, "upsert") == start + 1)
        #expect(try await store.note(id: note.id).version == Int64(start + 1))

        try await postgresExecute(url: url, "UPDATE species_sources SET uuid = ? WHERE uuid = ?", [newID, oldID])
        #expect(try await head(url) == start + 3)
        #expect(try await entry(url, oldID, "delete") == start + 2)
        #expect(try await entry(url, newID, "upsert") == start + 3)

        try await postgresExecute(url: url, "DELETE FROM species_sources WHERE uuid = ?", [newID])
        #expect(try await head(url) == start + 4)
        #expect(try await entry(url, newID, "delete") == start + 4)
        #expect(try await entry(url, oldID, "delete") == start + 2)

        let changes = try await store.changes(after: Int64(start))
        #expect(changes.head == Int64(start + 4))
        #expect(changes.unknownRows, "the notes gone have no row left")
        #expect(changes.speciesWithChangedRows.isEmpty)
        await #expect(throws: OakError.self) { try await store.note(id: note.id) }
    }

    @Test(
        "notes another program inserts in one statement, one of them a deleted note's id, take a number each in their order; the deleted id's tombstone becomes its upsert, one entry a key"
    )
    func otherProgramsNoteInsertsAreLogged() async throws {
        let (store, url, note) = try await storeWithNote()
        let (revivedID, newID) = (note.id.wireString, UUID().wireString)
        let firstSource = try await postgresCount(url: url, "SELECT source_id FROM species_sources WHERE uuid = ?", [revivedID])
        let secondSource = try await postgresCount(url: url, "INSERT INTO sources(source_type, name) VALUES ('Book', 'A second book') RETURNING id", [])
        try await postgresExecute(url: url, "DELETE FROM species_sources WHERE uuid = ?", [revivedID])
        let start = try await head(url)
        #expect(try await entry(url, revivedID, "delete") == start)

        try await postgresExecute(
            url: url,
            """
            INSERT INTO species_sources(scientific_name, source_id, uuid, leaves)
                VALUES ('alba', \(firstSource), ?, 'revived'), ('alba', \(secondSource), ?, 'new')
            """, [revivedID, newID])

        #expect(try await head(url) == start + 2)
        #expect(try await entry(url, revivedID, "upsert") == start + 1)
        #expect(try await entry(url, newID, "upsert") == start + 2)
        let revived = try await store.note(id: note.id)
        #expect(revived.fields.leaf == "revived" && revived.version == Int64(start + 1))
        let changes = try await store.changes(after: Int64(start))
        #expect(changes.head == Int64(start + 2))
        #expect(changes.speciesWithChangedRows == ["alba"] && !changes.unknownRows)
    }
}
