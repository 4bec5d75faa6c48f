import Foundation
import OakModels
import OakStore
import OakTestSupport
import Testing

/// Notes written into the database by other programs (psql, scripts) get what the server always writes: an id in
/// lower case and both timestamps (`oak_fill_note_row`, run only for a row that lacks one of them, migration v6).
@Suite(
    "PostgreSQL: note rows other programs write", .timeLimit(.minutes(1)),
    .needsPostgres)
struct PostgresNoteRowFillTests {
    /// How many notes of `alba` with source `source` have a lower-case id and both timestamps.
    private func filledRows(_ url: String, source: Int) async throws -> Int {
        try await postgresCount(
            url: url,
            """
            SELECT COUNT(*) FROM species_sources WHERE scientific_name = 'alba' AND source_id = \(source)
                AND uuid = lower(uuid) AND uuid ~ '^[0-9a-f-]{36}$' AND created_at LIKE '20%Z' AND updated_at LIKE '20%Z'
            """, [])
    }

    @Test(
        "a note inserted by another program without an id, with an upper-case id, or without a timestamp is stored with a lower-case id and both timestamps, and the server finds it; an id changed to upper case is lowered"
    )
    func otherProgramsNotesAreFilledIn() async throws {
        let (store, url) = try await temporaryStore(.postgres)
        try await postgresExecute(url: url, "INSERT INTO species_sources (scientific_name, source_id, leaves) VALUES ('alba', 1, 'no id')")
        #expect(try await filledRows(url, source: 1) == 1)

        let upper = UUID()
        try await postgresExecute(
            url: url,
            """
            INSERT INTO species_sources (uuid, scientific_name, source_id, leaves, created_at, updated_at)
                VALUES (?, 'alba', 2, 'upper id', '2026-01-02T03:04:05.000Z', '2026-01-02T03:04:05.000Z')
            """, [upper.uuidString])
        #expect(try await filledRows(url, source: 2) == 1)
        #expect(try await store.note(id: upper).fields.leaf == "upper id")

        let dated = UUID().wireString
        try await postgresExecute(
            url: url,
            "INSERT INTO species_sources (uuid, scientific_name, source_id, leaves, created_at) VALUES (?, 'alba', 3, 'one timestamp', '2026-01-02T03:04:05.000Z')",
            [dated])
        #expect(try await filledRows(url, source: 3) == 1)
        #expect(
            try await postgresCount(url: url, "SELECT COUNT(*) FROM species_sources WHERE uuid = ? AND created_at = '2026-01-02T03:04:05.000Z'", [dated])
                == 1, "a timestamp given is kept")

        try await postgresExecute(url: url, "UPDATE species_sources SET uuid = upper(uuid) WHERE uuid = ?", [dated])
        #expect(try await postgresCount(url: url, "SELECT COUNT(*) FROM species_sources WHERE uuid = ?", [dated]) == 1)
    }
}
