import Foundation
import OakModels
import OakStore
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
    @Test(
        "a note edited, given a new id and deleted by another program moves the head once a change and leaves one entry a key, with the newest number; the ids gone are tombstones"
    )
    func otherProgramsNoteChangesAreLogged() async throws {
        let (store, url) = try await temporaryStore(.postgres)
        let note = try await store.createNote(NoteInput(scientificName: "alba", fields: NoteFieldsPatch(replacingWith: NoteFields(leaf: "first"))))
        let (oldID, newID) = (note.id.wireString, UUID().wireString)
        func head() async throws -> Int { try await postgresCount(url: url, "SELECT seq FROM change_log_head", []) }
        let start = try await head()
        #expect(start == Int(note.version))

        /// The key's one entry in the change log: its number when it is of `op` (a tombstone with its time), else 0.
        func entry(_ key: String, _ op: String) async throws -> Int {
            #expect(try await postgresCount(url: url, "SELECT COUNT(*) FROM change_log WHERE entity = 'notes' AND entity_key = ?", [key]) == 1)
            return try await postgresCount(
                url: url,
                """
                SELECT seq FROM change_log WHERE entity = 'notes' AND entity_key = ? AND op = ?
                    AND (deleted_at IS NOT NULL) = (op = 'delete') AND changed_at LIKE '20%Z'
                """, [key, op])
        }

        try await postgresExecute(url: url, "UPDATE species_sources SET leaves = 'edited' WHERE uuid = ?", [oldID])
        #expect(try await head() == start + 1)
        #expect(try await entry(oldID, "upsert") == start + 1)
        #expect(try await store.note(id: note.id).version == Int64(start + 1))

        try await postgresExecute(url: url, "UPDATE species_sources SET uuid = ? WHERE uuid = ?", [newID, oldID])
        #expect(try await head() == start + 3)
        #expect(try await entry(oldID, "delete") == start + 2)
        #expect(try await entry(newID, "upsert") == start + 3)

        try await postgresExecute(url: url, "DELETE FROM species_sources WHERE uuid = ?", [newID])
        #expect(try await head() == start + 4)
        #expect(try await entry(newID, "delete") == start + 4)
        #expect(try await entry(oldID, "delete") == start + 2)

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
        let (store, url) = try await temporaryStore(.postgres)
        let note = try await store.createNote(NoteInput(scientificName: "alba", fields: NoteFieldsPatch(replacingWith: NoteFields(leaf: "first"))))
        let (revivedID, newID) = (note.id.wireString, UUID().wireString)
        let firstSource = try await postgresCount(url: url, "SELECT source_id FROM species_sources WHERE uuid = ?", [revivedID])
        let secondSource = try await postgresCount(url: url, "INSERT INTO sources(source_type, name) VALUES ('Book', 'A second book') RETURNING id", [])
        try await postgresExecute(url: url, "DELETE FROM species_sources WHERE uuid = ?", [revivedID])
        let start = try await postgresCount(url: url, "SELECT seq FROM change_log_head", [])
        #expect(try await postgresCount(url: url, "SELECT COUNT(*) FROM change_log WHERE entity_key = ? AND op = 'delete'", [revivedID]) == 1)

        try await postgresExecute(
            url: url,
            """
            INSERT INTO species_sources(scientific_name, source_id, uuid, leaves)
                VALUES ('alba', \(firstSource), ?, 'revived'), ('alba', \(secondSource), ?, 'new')
            """, [revivedID, newID])

        #expect(try await postgresCount(url: url, "SELECT seq FROM change_log_head", []) == start + 2)
        for (key, number) in [(revivedID, start + 1), (newID, start + 2)] {
            #expect(try await postgresCount(url: url, "SELECT COUNT(*) FROM change_log WHERE entity = 'notes' AND entity_key = ?", [key]) == 1)
            #expect(
                try await postgresCount(
                    url: url, "SELECT seq FROM change_log WHERE entity_key = ? AND op = 'upsert' AND deleted_at IS NULL AND changed_at LIKE '20%Z'",
                    [key]) == number)
        }
        #expect(try await store.note(id: note.id).fields.leaf == "revived")
        #expect(try await store.note(id: note.id).version == Int64(start + 1))
        let changes = try await store.changes(after: Int64(start))
        #expect(changes.head == Int64(start + 2))
        #expect(changes.speciesWithChangedRows == ["alba"] && !changes.unknownRows)
    }
}
