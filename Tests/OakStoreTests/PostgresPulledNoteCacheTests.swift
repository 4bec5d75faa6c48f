import Foundation
import OakModels
import OakStore
import OakTestSupport
import Testing

@testable import OakStorePostgres

/// A PostgreSQL pull writes the notes it read before from the server's cache of note versions (`PulledNoteCache`),
/// by their change-log entries: what a device pulls must be what the database holds, whatever the cache held.
@Suite("PostgreSQL: the pulled notes' cache", .timeLimit(.minutes(1)), .needsPostgres)
struct PostgresPulledNoteCacheTests {
    /// A store on a new database with `count` notes of its own, and its URL.
    private func storeWithNotes(_ count: Int = 30) async throws -> (PostgresStore, String, [Note]) {
        let (served, url) = try await temporaryStore(.postgres)
        let store = try #require(served as? PostgresStore)
        let names = try await store.listSpecies(filter: SpeciesFilter(), limit: count, offset: 0).data.map(\.scientificName)
        var notes: [Note] = []
        for (index, name) in names.enumerated() {
            var fields = NoteFieldsPatch()
            try fields.set("leaf", to: "leaf \(index)")
            notes.append(try await store.createNote(NoteInput(scientificName: name, fields: fields)))
        }
        return (store, url, notes)
    }

    /// Every page of a full pull of notes, as the store wrote them.
    private func fullPull(_ store: PostgresStore, limit: Int = 7) async throws -> [Data] {
        var pages: [Data] = []
        var cursor: String?
        repeat {
            let page = try await store.pull(cursor: cursor, limit: limit, entities: [.notes])
            pages.append(Data(page.body.readableBytesView))
            cursor = page.following
        } while cursor != nil
        return pages
    }

    /// The notes of a full pull, by id.
    private func pulledNotes(_ store: PostgresStore) async throws -> [UUID: Note] {
        var notes: [UUID: Note] = [:]
        for page in try await fullPull(store) {
            for change in try JSONDecoder().decode(PullResponse.self, from: page).changes {
                if case .note(let note) = change.record { notes[note.id] = note }
            }
        }
        return notes
    }

    @Test("a pull of notes the cache holds is the same, byte for byte, as the pull that read them from the database")
    func cachedPullEqualsDatabasePull() async throws {
        let (store, _, notes) = try await storeWithNotes()
        let read = try await fullPull(store)
        #expect(store.pulledNotes.count >= notes.count, "the first pull keeps the notes it read")
        #expect(try await fullPull(store) == read)
    }

    @Test("a note edited after it was pulled is pulled with its edit, not as the cache held it")
    func editedNoteIsPulledAnew() async throws {
        let (store, _, notes) = try await storeWithNotes()
        _ = try await fullPull(store)
        var fields = NoteFieldsPatch()
        try fields.set("leaf", to: "edited after the pull")
        _ = try await store.updateNote(id: notes[3].id, with: NoteInput(fields: fields), expectedVersion: nil)
        let pulled = try await pulledNotes(store)
        #expect(pulled[notes[3].id]?.fields.leaf == "edited after the pull")
        #expect(pulled[notes[4].id]?.fields.leaf == "leaf 4")
    }

    @Test("notes of a species whose taxonomy changed after they were pulled are pulled with the new taxonomy")
    func taxonomyChangeIsPulledAnew() async throws {
        let (store, _, notes) = try await storeWithNotes()
        _ = try await fullPull(store)
        var patch = SpeciesPatch()
        patch.section = .value("Cachedsection")
        _ = try await store.updateSpecies(named: notes[5].scientificName, with: patch)
        #expect(try await pulledNotes(store)[notes[5].id]?.taxonomy.section == "Cachedsection")
    }

    @Test(
        "a note written again under a sequence number the cache holds (a database set back in time, a point-in-time recovery) is pulled as the database holds it"
    )
    func reusedSequenceNumberIsPulledAnew() async throws {
        let (store, url, notes) = try await storeWithNotes()
        _ = try await fullPull(store)
        // As a recovered database and a new write leave it: the same entry number, another time, other content.
        try await postgresExecute(url: url, "ALTER TABLE species_sources DISABLE TRIGGER USER")
        try await postgresExecute(url: url, "UPDATE species_sources SET leaves = 'written after the recovery' WHERE uuid = ?", [notes[2].id.wireString])
        try await postgresExecute(url: url, "ALTER TABLE species_sources ENABLE TRIGGER USER")
        try await postgresExecute(
            url: url, "UPDATE change_log SET changed_at = '2030-01-01T00:00:00.000Z' WHERE entity = 'notes' AND entity_key = ?",
            [notes[2].id.wireString])
        #expect(try await pulledNotes(store)[notes[2].id]?.fields.leaf == "written after the recovery")
    }
}

@Suite("The pulled notes' cache")
struct PulledNoteCacheTests {
    private func entry(_ sequence: Int64, time: String = "2026-12-02T10:00:00.000000Z") -> PulledNoteCache.Entry {
        PulledNoteCache.Entry(sequence: sequence, note: "note-\(sequence)", time: time)
    }

    @Test("a note is found only by its whole entry: the same sequence number with another note or time is not it")
    func foundByWholeEntry() {
        let cache = PulledNoteCache()
        cache.keep([entry(1)], writtenAs: [1: Data("one".utf8)], of: "db")
        #expect(cache.notes([entry(1)], of: "db") == [1: Data("one".utf8)])
        #expect(cache.notes([entry(1, time: "2030-01-01T00:00:00.000000Z")], of: "db").isEmpty)
        #expect(cache.notes([PulledNoteCache.Entry(sequence: 1, note: "another", time: entry(1).time)], of: "db").isEmpty)
    }

    @Test("another database's notes are never answered: the cache lets go of the one it held")
    func oneDatabaseAtATime() {
        let cache = PulledNoteCache()
        cache.keep([entry(1)], writtenAs: [1: Data("one".utf8)], of: "restored")
        #expect(cache.notes([entry(1)], of: "new history").isEmpty)
        #expect(cache.notes([entry(1)], of: "restored").isEmpty, "what the other database held is gone")
        #expect(cache.count == 0)
    }

    @Test("past its budget the cache lets the oldest notes go first")
    func oldestGoFirst() {
        let cache = PulledNoteCache(budget: 10)
        cache.keep((1...4).map { entry($0) }, writtenAs: Dictionary(uniqueKeysWithValues: (1...4).map { ($0, Data("abcd".utf8)) }), of: "db")
        #expect(cache.count == 2)
        #expect(cache.notes((1...4).map { entry($0) }, of: "db").keys.sorted() == [3, 4])
    }
}
