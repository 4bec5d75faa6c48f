import Foundation
import NIOCore
import OakModels
import OakStore
import OakStoreKit
import OakStorePostgres
import OakStoreSQLite
import OakTestBasics
import OakTestSupport
import PostgresNIO
import Testing

/// What every backend must do alike, run on each one available (SQLite always; PostgreSQL through
/// scripts/with-postgres). The HTTP suites run on either backend too (`OAK_TEST_STORE`).
@Suite("Store conformance")
struct StoreConformanceTests {
    private static let allEntities = SyncEntity.allCases

    /// A store on a fresh database (`temporaryStore`) and the names of its first `count` species.
    private static func storeWithSpecies(_ backend: TestBackend, _ count: Int, maxConnections: Int = 2) async throws
        -> (store: any ServedStore, species: [String])
    {
        let (store, _) = try await temporaryStore(backend, maxConnections: maxConnections)
        return (store, try await store.listSpecies(filter: SpeciesFilter(), limit: count, offset: 0).data.map(\.scientificName))
    }

    /// Pulls from `cursor` until the log is drained; each change's (entity/key, version), in the order read.
    private static func drain(_ store: any ServedStore, from cursor: String?, limit: Int = 25) async throws -> (changes: [(String, Int64)], cursor: String) {
        var cursor = cursor
        var changes: [(String, Int64)] = []
        while true {
            let page = try JSONDecoder().decode(
                PullResponse.self, from: Data(buffer: try await store.pull(cursor: cursor, limit: limit, entities: allEntities).body))
            changes += page.changes.map { ("\($0.entity.rawValue)/\($0.key)", $0.version) }
            cursor = page.cursor
            if !page.hasMore { return (changes, page.cursor) }
        }
    }

    @Test(
        "change log under concurrency: parallel writers and a concurrent puller never miss a change, and versions arrive in order",
        arguments: TestBackend.available)
    func parallelWritersConcurrentPuller(_ backend: TestBackend) async throws {
        let (store, species) = try await Self.storeWithSpecies(backend, 40, maxConnections: 8)
        var ids: [UUID] = []
        for name in species { ids.append(try await store.createNote(NoteInput(scientificName: name)).id) }
        let start = try await Self.drain(store, from: nil).cursor
        let notes = ids

        let writers = 6
        let rounds = 30
        let writing = Flag()
        let puller = Task {
            var cursor = start
            var seen: [(String, Int64)] = []
            while writing.isSet {
                let page = try await Self.drain(store, from: cursor, limit: 7)
                seen += page.changes
                cursor = page.cursor
            }
            let last = try await Self.drain(store, from: cursor, limit: 7)
            return (seen + last.changes, last.cursor)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for round in 0..<rounds {
                        // Notes pushed in batches (several changes in one transaction), species edited alone.
                        let batch = (0..<3).map { notes[(writer * 7 + round * 3 + $0) % notes.count] }
                        var pushed: [PushChange] = []
                        for id in batch {
                            let note = try await store.note(id: id)
                            pushed.append(
                                PushChange(
                                    id: id, op: .upsert, baseVersion: note.version, updatedAt: note.updatedAt.addingTimeInterval(1),
                                    note: PushedNote(scientificName: note.scientificName, fields: NoteFields(leaf: "writer \(writer) round \(round)"))))
                        }
                        _ = try await store.push(pushed, cursor: nil)
                        if round % 5 == 0 {
                            var patch = SpeciesPatch()
                            patch.author = .value("writer \(writer) round \(round)")
                            _ = try await store.updateSpecies(named: species[(writer + round) % species.count], with: patch)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        writing.clear()
        let (seen, _) = try await puller.value

        // Every change arrives in version order: a page never holds a version below one already delivered.
        let versions = seen.map(\.1)
        #expect(versions == versions.sorted())
        #expect(Set(versions).count == versions.count)
        // And none is missed: what the puller holds last for each record is the record's current version.
        var held: [String: Int64] = [:]
        for (key, version) in seen { held[key] = max(held[key] ?? 0, version) }
        let current = try await Self.drain(store, from: nil, limit: 1000).changes
        var missed: [String] = []
        for (key, version) in current where (key.hasPrefix("notes/") || key.hasPrefix("species/")) && version > start.sequenceNumber {
            if held[key] != version { missed.append("\(key): current \(version), pulled \(held[key].map(String.init) ?? "never")") }
        }
        #expect(missed.isEmpty, "changes the concurrent puller missed: \(missed)")
        #expect(held.keys.filter { $0.hasPrefix("notes/") }.count == notes.count)
    }
}

extension StoreConformanceTests {
    @Test(
        "a push batch mixing new notes with an edit and a delete numbers its changes in the batch's order, and a pull sees each at its version",
        arguments: TestBackend.available)
    func pushBatchNumbersChangesInOrder(_ backend: TestBackend) async throws {
        let (store, species) = try await Self.storeWithSpecies(backend, 5)
        let edited = try await store.createNote(NoteInput(scientificName: species[3]))
        let deleted = try await store.createNote(NoteInput(scientificName: species[4]))
        let start = try await Self.drain(store, from: nil, limit: 1000).cursor
        let time = edited.updatedAt.addingTimeInterval(5)
        func new(_ name: String) -> PushChange {
            PushChange(id: UUID(), op: .upsert, baseVersion: nil, updatedAt: time, note: PushedNote(scientificName: name, fields: NoteFields(leaf: name)))
        }
        let changes = [
            new(species[0]), new(species[1]),
            PushChange(
                id: edited.id, op: .upsert, baseVersion: edited.version, updatedAt: time,
                note: PushedNote(scientificName: edited.scientificName, fields: NoteFields(bark: "edited"))),
            new(species[2]),
            PushChange(id: deleted.id, op: .delete, baseVersion: deleted.version, updatedAt: time, note: nil),
        ]
        let body = try await store.push(changes, cursor: nil)
        let results = try JSONDecoder().decode(PushResponse.self, from: Data(body.readableBytesView)).results
        #expect(results.map(\.status) == Array(repeating: .applied, count: changes.count))
        #expect(results.map(\.id) == changes.map(\.id))
        let versions = results.compactMap(\.version)
        #expect(versions.count == changes.count)
        #expect(versions == versions.sorted() && Set(versions).count == versions.count, "versions in batch order: \(versions)")

        let pulled = Dictionary(try await Self.drain(store, from: start, limit: 1000).changes, uniquingKeysWith: { $1 })
        for (change, version) in zip(changes, versions) {
            #expect(pulled["notes/\(change.id.uuidString.lowercased())"] == version)
        }
        for (index, change) in changes.enumerated() where index != 4 {
            #expect(try await store.note(id: change.id).version == versions[index])
        }
        #expect(try await store.note(id: edited.id).fields.bark == "edited")
    }

    @Test(
        "a push batch's new notes are stored with every field as sent: absent, empty, non-ASCII, quotes, backslashes and long text",
        arguments: TestBackend.available)
    func pushedNewNotesKeepEveryField(_ backend: TestBackend) async throws {
        let (store, species) = try await Self.storeWithSpecies(backend, 3)
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        let sent = [
            NoteFields(commonNames: "Weiße Eiche, 白橡", leaf: "Lobed — “sinuate”, 5–7 lobes\n\\ \"quoted\" 'single'", acorn: ""),
            NoteFields(bark: String(repeating: "furrowed, scaly; ", count: 200), fieldNotes: "🌳 seen at dawn"),
            NoteFields(),
        ]
        let changes = zip(species, sent).map { name, fields in
            PushChange(id: UUID(), op: .upsert, baseVersion: nil, updatedAt: time, note: PushedNote(scientificName: name, fields: fields))
        }
        let body = try await store.push(changes, cursor: nil)
        let results = try JSONDecoder().decode(PushResponse.self, from: Data(body.readableBytesView)).results
        #expect(results.map(\.status) == [.applied, .applied, .applied])
        for (change, fields) in zip(changes, sent) {
            let stored = try await store.note(id: change.id)
            #expect(stored.fields == fields)
            #expect(stored.scientificName == change.note?.scientificName)
        }
    }

    /// A note written and pulled back: what a store given its connection must do as one it opened itself.
    private func expectWorks(_ store: any ServedStore) async throws {
        var fields = NoteFieldsPatch()
        try fields.set("leaf", to: "lobed")
        let note = try await store.createNote(NoteInput(scientificName: "alba", fields: fields))
        let pulled = try await Self.drain(store, from: nil, limit: 1000).changes
        #expect(pulled.contains { $0.0 == "notes/\(note.id.uuidString.lowercased())" && $0.1 == note.version })
        #expect(try await store.listSpecies(filter: SpeciesFilter(), limit: 1, offset: 0).pagination.total > 0)
    }

    @Test("injected: a SQLite store on any GRDB database, here a queue in memory, serves notes and sync and leaves no file")
    func sqliteInMemory() async throws {
        let store = try SQLiteStore.inMemory()
        #expect(store.path == ":memory:")
        #expect(store.poolStatus.fileBytes == nil)
        try await expectWorks(store)
    }

    @Test(
        "a write moves the data version once, and on PostgreSQL leaves it known without reading the database (a note created, edited and deleted): with no write after them, the version read a second later is the same, so nothing read after the writes is let go again",
        arguments: TestBackend.available)
    func writeMovesTheVersionOnce(_ backend: TestBackend) async throws {
        let (store, _) = try await temporaryStore(backend)
        // As the server's caches do, the test follows the change log after every write.
        var position = try await store.changes(after: nil).head
        // PostgreSQL knows the version once its change notifications arrive.
        let listening = ContinuousClock.now
        while store.knownDataVersion == nil, ContinuousClock.now - listening < .seconds(10) {
            _ = try await store.dataVersion()
            try await Task.sleep(for: .milliseconds(20))
        }
        var version = try await store.dataVersion()
        func expectMovedAndKnown(by write: String) async throws {
            // PostgreSQL's write leaves the head known; SQLite knows it within a second of its last look at the file.
            let after = try await backend == .postgres ? #require(store.knownDataVersion, "the version after \(write) is known") : store.dataVersion()
            #expect(after > version, "\(write) moves the version")
            version = after
            position = try await store.changes(after: position).head
        }
        let note = try await store.createNote(NoteInput(scientificName: "alba"))
        try await expectMovedAndKnown(by: "a new note")
        let edited = try await store.updateNote(
            id: note.id, with: NoteInput(fields: NoteFieldsPatch(replacingWith: NoteFields(leaf: "lobed"))), expectedVersion: nil)
        try await expectMovedAndKnown(by: "an edit")
        try await store.deleteNote(id: note.id, expectedVersion: edited.version)
        try await expectMovedAndKnown(by: "a delete")
        // Past SQLite's once-a-second look at the change log for other programs' writes, and the second PostgreSQL
        // trusts a known head before it reads it again: every write's notification has come by then.
        try await Task.sleep(for: .milliseconds(1100))
        #expect(try await store.dataVersion() == version)
    }

    @Test("a species' full record written from the rows is byte for byte the model through the encoder", arguments: TestBackend.available)
    func speciesFullWrittenFromRows(_ backend: TestBackend) async throws {
        let (store, _) = try await temporaryStore(backend)
        var patch = SourcePatch()
        patch.sourceType = .value("book")
        patch.name = .value("Flora \"of\" the field")
        patch.url = .value("https://example.org/flora")
        let source = try await store.createSource(patch)
        let fields = try JSONDecoder().decode(
            NoteFieldsPatch.self, from: Data(#"{"commonNames": "white oak, chêne", "leaf": "lobed / 7–9 \\ \"deep\"", "twigs": ""}"#.utf8))
        _ = try await store.createNote(NoteInput(scientificName: "alba", sourceId: source.id, fields: fields))
        _ = try await store.createNote(NoteInput(scientificName: "alba"))
        for item in try await store.listSpecies(filter: SpeciesFilter(), limit: 30, offset: 0).data + [try await store.species(named: "alba")] {
            let expected = try WireJSON.encoder.encode(try await store.speciesFull(named: item.scientificName))
            #expect(Data(try await store.encodedSpeciesFull(named: item.scientificName).readableBytesView) == expected, "\(item.scientificName)")
        }
        let missing = await #expect(throws: OakError.self) { try await store.encodedSpeciesFull(named: "nosuchoak") }
        #expect(missing?.code.rawValue == ErrorCode.notFound.rawValue)
    }

    @Test(
        "a new note wrong in two ways (a field too long, and an unknown source or a species that already has its note) gets the same answer on every backend: 400 naming the field, nothing written",
        arguments: TestBackend.available)
    func newNoteWrongTwiceAnsweredAlike(_ backend: TestBackend) async throws {
        let (store, _) = try await temporaryStore(backend)
        _ = try await store.createNote(NoteInput(scientificName: "alba"))
        let tooLong = NoteFieldsPatch(replacingWith: NoteFields(leaf: String(repeating: "x", count: FieldLimits.longText + 1)))
        for input in [
            NoteInput(scientificName: "rubra", sourceId: 999_999, fields: tooLong),
            NoteInput(scientificName: "alba", fields: tooLong),
        ] {
            let refused = await #expect(throws: OakError.self) { try await store.createNote(input) }
            #expect(refused?.code == .validationError, "\(backend), \(input.scientificName ?? "")")
            #expect(refused?.fieldErrors.map(\.field) == ["fields.leaf"], "\(backend), \(input.scientificName ?? "")")
        }
        #expect(try await store.notes(species: nil, sourceId: Source.personalObservationID).map(\.scientificName) == ["alba"])
    }

    @Test(
        "concurrent edits of one note: every edit without If-Match is applied, edits on one version give one success and 412s, and each answer's version is the note's version a pull reports",
        arguments: TestBackend.available)
    func concurrentEditsOfOneNote(_ backend: TestBackend) async throws {
        let (store, _) = try await temporaryStore(backend, maxConnections: 8)
        let note = try await store.createNote(NoteInput(scientificName: "alba"))
        let writers = 6
        let rounds = 8
        let answered = try await withThrowingTaskGroup(of: [Note].self) { group in
            for writer in 0..<writers {
                group.addTask {
                    var notes: [Note] = []
                    for round in 0..<rounds {
                        let fields = NoteFieldsPatch(replacingWith: NoteFields(leaf: "writer \(writer), round \(round)"))
                        notes.append(try await store.updateNote(id: note.id, with: NoteInput(fields: fields), expectedVersion: nil))
                    }
                    return notes
                }
            }
            return try await group.reduce(into: [Note]()) { $0 += $1 }
        }
        #expect(answered.count == writers * rounds)
        #expect(Set(answered.map(\.version)).count == writers * rounds, "\(backend): each edit its own version")
        let last = try #require(answered.max { $0.version < $1.version })
        let stored = try await store.note(id: note.id)
        #expect(stored.version == last.version && stored.fields == last.fields, "\(backend): the note is the last edit's answer")
        let pulled = try await Self.drain(store, from: nil).changes.last { $0.0 == "notes/\(note.id.wireString)" }
        #expect(pulled?.1 == stored.version, "\(backend)")

        // Edits all made on the version just read: one is applied, the others are refused 412 and change nothing.
        let base = stored.version
        let outcomes = await withTaskGroup(of: Result<Note, OakError>.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    let fields = NoteFieldsPatch(replacingWith: NoteFields(leaf: "on \(base) by \(writer)"))
                    do {
                        return .success(try await store.updateNote(id: note.id, with: NoteInput(fields: fields), expectedVersion: base))
                    } catch let error as OakError {
                        return .failure(error)
                    } catch {
                        return .failure(OakError(.internalError, "\(error)"))
                    }
                }
            }
            return await group.reduce(into: [Result<Note, OakError>]()) { $0.append($1) }
        }
        let applied = outcomes.compactMap { try? $0.get() }
        #expect(applied.count == 1, "\(backend)")
        #expect(
            outcomes.compactMap { if case .failure(let error) = $0 { error.code.rawValue } else { nil } }
                == Array(repeating: ErrorCode.preconditionFailed.rawValue, count: writers - 1),
            "\(backend)")
        let after = try await store.note(id: note.id)
        #expect(after.version == applied.first?.version && after.fields == applied.first?.fields, "\(backend)")
    }

    @Test(
        "injected: a PostgreSQL store on a connection pool its caller runs",
        .needsPostgres)
    func postgresOnCallersClient() async throws {
        let url = try await temporaryPostgresDatabase()
        let client = PostgresClient(configuration: try PostgresURL(url).clientConfiguration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            try await expectWorks(try await PostgresStore(client: client, pool: PostgresPoolSettings(maxConnections: 20)))
            group.cancelAll()
        }
    }
}

/// A flag shared between tasks: set until cleared.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = true

    var isSet: Bool { lock.withLock { value } }
    func clear() { lock.withLock { value = false } }
}

extension String {
    /// The sequence number of a pull cursor (`database.sequence[.snapshot]`).
    fileprivate var sequenceNumber: Int64 {
        Int64(split(separator: ".")[1]) ?? 0
    }
}
