import Foundation
import OakClient
import OakModels
import OakStore
import OakStoreSQLite
import OakSync
import OakTestBasics
import OakTestSupport
import Testing

@Suite("OakSync scenarios against a live server", .timeLimit(.minutes(1)))
struct SyncScenarioTests {
    /// A few species names the server knows.
    static func speciesNames(_ server: LiveServer, count: Int = 4) async throws -> [String] {
        try await server.client().listSpecies(limit: count).data.map(\.scientificName)
    }

    /// Waits until the engine publishes a status that satisfies `condition`.
    static func status(of engine: SyncEngine, where condition: (SyncStatus) -> Bool) async -> SyncStatus? {
        for await status in engine.statusUpdates() where condition(status) { return status }
        return nil
    }

    @Test("Fetch notes from the server and cache them")
    func fetchAndCache() async throws {
        try await LiveServer.run { server in
            let names = try await Self.speciesNames(server)
            let created = try await server.client().createNote(scientificName: names[0], fields: NoteFields(leaf: "lobed"))
            let device = try Device(server: server, clock: WriteClock())
            await device.engine.sync()

            #expect(try await device.repository.notes().map(\.id).contains(created.id))
            #expect(try await device.repository.note(id: created.id)?.fields.leaf == "lobed")
            #expect(try await device.repository.store.species(named: names[0])?.scientificName == names[0])
            #expect(try await !device.repository.store.taxa().isEmpty)
            #expect(try await device.repository.store.cursor() != nil)
            #expect(await device.engine.status.state == .idle)
        }
    }

    @Test("Create, update and delete through the API update the cache")
    func writesUpdateCache() async throws {
        try await LiveServer.run { server in
            let names = try await Self.speciesNames(server)
            let device = try Device(server: server, clock: WriteClock())
            let api = server.client()
            await device.engine.sync()

            // Through the repository: the server follows.
            let mine = try await device.repository.create(scientificName: names[0], fields: NoteFields(bark: "scaly"))
            await device.engine.sync()
            #expect(try await api.note(id: mine.id).fields.bark == "scaly")
            try await device.repository.update(id: mine.id, fields: NoteFields(bark: "smooth"))
            await device.engine.sync()
            #expect(try await api.note(id: mine.id).fields.bark == "smooth")
            try await device.repository.delete(id: mine.id)
            await device.engine.sync()
            #expect(try await api.notes().map(\.id).contains(mine.id) == false)

            // Through the REST API: the cache follows.
            let theirs = try await api.createNote(scientificName: names[1], fields: NoteFields(acorn: "small"))
            await device.engine.sync()
            #expect(try await device.repository.note(id: theirs.id)?.fields.acorn == "small")
            _ = try await api.updateNote(id: theirs.id, fields: NoteFields(acorn: "large"))
            await device.engine.sync()
            #expect(try await device.repository.note(id: theirs.id)?.fields.acorn == "large")
            try await api.deleteNote(id: theirs.id)
            await device.engine.sync()
            #expect(try await device.repository.note(id: theirs.id) == nil)
            #expect(try await device.repository.pendingCount() == 0)
        }
    }

    @Test("Read while offline")
    func readOffline() async throws {
        try await LiveServer.run { server in
            let names = try await Self.speciesNames(server)
            let created = try await server.client().createNote(scientificName: names[0], fields: NoteFields(form: "tree"))
            let device = try Device(server: server, clock: WriteClock())
            await device.engine.sync()

            device.set(online: false)
            await device.engine.sync()
            #expect(await device.engine.status.state == .offline)
            #expect(try await device.repository.note(id: created.id)?.fields.form == "tree")
            #expect(try await device.repository.store.species(named: names[0]) != nil)
            #expect(try await device.repository.store.sourceData(of: names[0]).contains { $0.id == created.id })
        }
    }

    @Test("Create while offline is queued")
    func createOfflineQueued() async throws {
        try await LiveServer.run { server in
            let names = try await Self.speciesNames(server)
            let device = try Device(server: server, clock: WriteClock())
            await device.engine.sync()
            device.set(online: false)

            let note = try await device.repository.create(scientificName: names[0], fields: NoteFields(twigs: "hairy"))
            #expect(note.syncStatus == .pendingUpload)
            await device.engine.sync()
            #expect(await device.engine.status.state == .offline)
            #expect(await device.engine.status.pendingCount == 1)
            #expect(try await server.client().notes().map(\.id).contains(note.id) == false)

            device.set(online: true)
            await device.engine.sync()
            #expect(try await server.client().note(id: note.id).fields.twigs == "hairy")
            #expect(try await device.repository.note(id: note.id)?.syncStatus == .synced)
        }
    }

    @Test("Sync on connectivity restore")
    func syncOnConnectivityRestore() async throws {
        try await LiveServer.run { server in
            let names = try await Self.speciesNames(server)
            let device = try Device(server: server, clock: WriteClock())
            await device.engine.sync()
            device.set(online: false)
            await device.engine.start()

            let note = try await device.repository.create(scientificName: names[0], fields: NoteFields(buds: "red"))
            _ = await Self.status(of: device.engine) { $0.state == .offline && $0.pendingCount == 1 }
            device.set(online: true)
            let synced = await Self.status(of: device.engine) { $0.state == .idle && $0.pendingCount == 0 }
            await device.engine.stop()

            #expect(synced?.lastSuccessfulSync != nil)
            #expect(try await server.client().note(id: note.id).fields.buds == "red")
        }
    }

    @Test("Conflict resolution by last-write-wins")
    func lastWriteWins() async throws {
        try await LiveServer.run { server in
            let names = try await Self.speciesNames(server)
            let clock = WriteClock()
            let first = try Device(server: server, clock: clock)
            let second = try Device(server: server, clock: clock)
            let shared = try await first.repository.create(scientificName: names[0], fields: NoteFields(leaf: "original"))
            await first.engine.sync()
            await second.engine.sync()

            // Both edit the same note offline; the second edit is later and wins, whoever pushes first.
            try await first.repository.update(id: shared.id, fields: NoteFields(leaf: "first"))
            try await second.repository.update(id: shared.id, fields: NoteFields(leaf: "second"))
            await second.engine.sync()
            await first.engine.sync()
            await second.engine.sync()

            // Both create a note for the same species offline: one note survives, with the later edit.
            let early = try await first.repository.create(scientificName: names[1], fields: NoteFields(acorn: "early"))
            let late = try await second.repository.create(scientificName: names[1], fields: NoteFields(acorn: "late"))
            await first.engine.sync()
            await second.engine.sync()
            await first.engine.sync()

            let serverNotes = try await server.client().notes()
            #expect(serverNotes.first { $0.id == shared.id }?.fields.leaf == "second")
            let contested = serverNotes.filter { $0.scientificName == names[1] }
            #expect(contested.map(\.fields.acorn) == ["late"])
            #expect(contested.map(\.id) == [early.id])
            #expect(late.id != early.id)
            for device in [first, second] {
                #expect(try await device.repository.notes().map(\.id) == serverNotes.map(\.id))
                #expect(try await device.repository.notes().map(\.fields) == serverNotes.map(\.fields))
                #expect(try await device.repository.pendingCount() == 0)
            }
        }
    }

    @Test("Two deletes and an edit between them: the later delete wins even when its device pulls the first one before pushing")
    func laterDeleteWinsOverEarlierTombstone() async throws {
        try await LiveServer.run { server in
            let names = try await Self.speciesNames(server)
            let clock = WriteClock()
            let (first, second, third) = (
                try Device(server: server, clock: clock), try Device(server: server, clock: clock), try Device(server: server, clock: clock)
            )
            let note = try await first.repository.create(scientificName: names[0], fields: NoteFields(leaf: "original"))
            for device in [first, second, third] { await device.engine.sync() }

            // The first device deletes; the third edits offline after that; the second deletes last, in the middle
            // of a sync that has already pushed and is pulling the first delete.
            try await first.repository.delete(id: note.id)
            await first.engine.sync()
            third.set(online: false)
            try await third.repository.update(id: note.id, fields: NoteFields(leaf: "edited between the deletes"))
            let repository = second.repository
            second.network.onResponse = { request in
                guard request.url.path.hasSuffix("/sync/pull") else { return }
                second.network.onResponse = nil
                _ = try? await repository.delete(id: note.id)
            }
            await second.engine.sync()
            third.set(online: true)
            await third.engine.sync()
            for device in [first, second, third] { await device.engine.sync() }

            #expect(try await server.client().notes().contains { $0.id == note.id } == false)
            for device in [first, second, third] {
                #expect(try await device.repository.note(id: note.id) == nil)
                #expect(try await device.repository.pendingCount() == 0)
            }
        }
    }

    @Test("A note edited while its push is in flight stays pending")
    func editDuringPush() async throws {
        try await LiveServer.run { server in
            let names = try await Self.speciesNames(server)
            // One push-pull round per sync, so the state right after the push is what the test sees.
            var configuration = testSyncConfiguration
            configuration.maxRounds = 1
            let device = try Device(server: server, clock: WriteClock(), configuration: configuration)
            await device.engine.sync()
            let note = try await device.repository.create(scientificName: names[0], fields: NoteFields(fieldNotes: "v1"))
            let repository = device.repository
            device.network.onResponse = { request in
                guard request.url.path.hasSuffix("/sync/push") else { return }
                device.network.onResponse = nil
                _ = try? await repository.update(id: note.id, fields: NoteFields(fieldNotes: "v2"))
            }
            await device.engine.sync()

            let local = try #require(try await device.repository.note(id: note.id))
            #expect(local.syncStatus == .pendingUpload)
            #expect(local.fields.fieldNotes == "v2")
            #expect(try await server.client().note(id: note.id).fields.fieldNotes == "v1")

            await device.engine.sync()
            #expect(try await device.repository.note(id: note.id)?.syncStatus == .synced)
            #expect(try await server.client().note(id: note.id).fields.fieldNotes == "v2")
        }
    }

    @Test("A rejected change stays visible with its error")
    func rejectedStaysVisible() async throws {
        try await LiveServer.run { server in
            let device = try Device(server: server, clock: WriteClock())
            await device.engine.sync()
            let note = try await device.repository.create(scientificName: "nonexistentus", fields: NoteFields(leaf: "?"))
            await device.engine.sync()
            await device.engine.sync()

            let local = try #require(try await device.repository.note(id: note.id))
            #expect(local.isRejected)
            #expect(local.syncStatus == .pendingUpload)
            #expect(local.lastError?.code == .validationError)
            #expect(local.lastError?.fieldErrors.map(\.field) == ["scientificName"])
            #expect(await device.engine.status.pendingCount == 1)
            #expect(try await device.repository.notes().map(\.id) == [note.id])

            // An edit makes it eligible again (and it is rejected again, still visible).
            try await device.repository.update(id: note.id, fields: NoteFields(leaf: "??"))
            #expect(try await device.repository.note(id: note.id)?.isRejected == false)
            await device.engine.sync()
            #expect(try await device.repository.note(id: note.id)?.lastError?.code == .validationError)
        }
    }

    @Test("An app killed mid-sync loses nothing and does not duplicate")
    func killedMidSync() async throws {
        try await LiveServer.run { server in
            let names = try await Self.speciesNames(server)
            let clock = WriteClock()
            var device: Device? = try Device(server: server, clock: clock)
            let path = try #require(device?.path)
            await device?.engine.sync()
            for name in names {
                try await device?.repository.create(scientificName: name, fields: NoteFields(rangeHabitat: "ridge"))
            }
            // Every push reaches the server, but no answer comes back before the app dies.
            device?.network.faults.dropResponse = 1
            await device?.engine.sync()
            #expect(try await server.client().notes().count == names.count)
            device = nil

            let relaunched = try Device(server: server, clock: clock, path: path)
            #expect(try await relaunched.repository.pendingCount() == names.count)
            await relaunched.engine.sync()
            let serverNotes = try await server.client().notes()
            #expect(serverNotes.count == names.count)
            #expect(try await relaunched.repository.notes().map(\.id) == serverNotes.map(\.id))
            #expect(try await relaunched.repository.pendingCount() == 0)
        }
    }

    @Test(
        "A server restored from a backup: the notes, edits (made milliseconds apart) and source it lost are sent to it again by the device that has them, not deleted there"
    )
    func restoredServerGetsLostNotesAgain() async throws {
        let clock = WriteClock()
        let devicePath = temporaryDirectory("oak-device").appendingPathComponent("device.db").path
        let backups = temporaryDirectory("oak-backups")
        let (backupFile, before, after, onNewSource) = try await LiveServer.run(backend: .sqlite) { server in
            let names = try await Self.speciesNames(server)
            let device = try Device(server: server, clock: clock, path: devicePath)
            let before = try await device.repository.create(scientificName: names[0], fields: NoteFields(leaf: "before the backup"))
            await device.engine.sync()
            let backup = try await #require(server.store.backups).backup(into: backups.path, keep: 5)
            let after = try await device.repository.create(scientificName: names[1], fields: NoteFields(leaf: "after the backup"))
            // An edit a few milliseconds after the note's creation: sync carries times to the millisecond both ways,
            // so the restored server, which holds the note as created, still takes the edit sent again.
            try await Task.sleep(for: .milliseconds(3))
            _ = try await device.repository.update(id: before.id, fields: NoteFields(leaf: "edited after the backup"))
            var patch = SourcePatch()
            patch.name = .value("Field book after the backup")
            patch.sourceType = .value("personal")
            let source = try await OfflineCatalog(store: device.repository.store).createSource(patch)
            let onNewSource = try await device.repository.create(scientificName: names[2], sourceId: source.id, fields: NoteFields(leaf: "on it"))
            await device.engine.sync()
            #expect(try await device.repository.note(id: after.id)?.syncStatus == .synced)
            #expect(try await device.repository.note(id: onNewSource.id).map { $0.syncStatus == .synced && $0.sourceId > 0 } == true)
            return (backups.appendingPathComponent(backup.filename).path, before.id, after.id, onNewSource.id)
        }

        // The server starts again on the backup: the note taken after it is not there, and the device's cursor is
        // ahead of the restored history.
        try await LiveServer.run(on: (try SQLiteStore(path: backupFile), backupFile)) { server in
            let api = server.client()
            await #expect(throws: OakClientError.self) { try await api.note(id: after) }
            let device = try Device(server: server, clock: clock, path: devicePath)
            await device.engine.sync()

            let status = await device.engine.status
            #expect(status.state == .idle, Comment(rawValue: status.lastError ?? ""))
            #expect(try await api.note(id: after).fields.leaf == "after the backup")
            // A note the backup holds, edited after it: the restored server gets the edit back.
            #expect(try await api.note(id: before).fields.leaf == "edited after the backup")
            #expect(try await device.repository.note(id: before)?.syncStatus == .synced)
            #expect(try await device.repository.note(id: after)?.syncStatus == .synced)
            // The source made after the backup is made again (a new number), and its note follows it.
            let sources = try await server.store.listSources().filter { $0.name == "Field book after the backup" }
            #expect(sources.count == 1)
            let recreated = try #require(sources.first)
            #expect(try await api.note(id: onNewSource).sourceId == recreated.id)
            #expect(try await device.repository.note(id: onNewSource).map { $0.syncStatus == .synced && $0.sourceId == recreated.id } == true)
            #expect(status.pendingCount == 0)
        }
    }

    @Test("A device moved to a new, empty server (another database) sends it the notes it holds instead of deleting them")
    func newServerGetsTheDevicesNotes() async throws {
        let clock = WriteClock()
        let devicePath = temporaryDirectory("oak-device").appendingPathComponent("device.db").path
        let kept = try await LiveServer.run { server in
            let device = try Device(server: server, clock: clock, path: devicePath)
            let note = try await device.repository.create(scientificName: try await Self.speciesNames(server)[0], fields: NoteFields(leaf: "kept"))
            await device.engine.sync()
            #expect(try await device.repository.note(id: note.id)?.syncStatus == .synced)
            return note.id
        }
        try await LiveServer.run { server in
            let device = try Device(server: server, clock: clock, path: devicePath)
            await device.engine.sync()
            let status = await device.engine.status
            #expect(status.state == .idle, Comment(rawValue: status.lastError ?? ""))
            #expect(try await server.client().note(id: kept).fields.leaf == "kept")
            #expect(try await device.repository.note(id: kept)?.syncStatus == .synced)
        }
    }

    @Test("A cursor answered with 410 triggers a full resync without losing pending changes")
    func goneCursorResyncs() async throws {
        try await LiveServer.run { server in
            let names = try await Self.speciesNames(server)
            let api = server.client()
            let doomed = try await api.createNote(scientificName: names[0], fields: NoteFields(leaf: "doomed"))
            let device = try Device(server: server, clock: WriteClock())
            await device.engine.sync()
            #expect(try await device.repository.note(id: doomed.id) != nil)

            // The server deletes a note and forgets the tombstone: the device's cursor is now too old.
            try await api.deleteNote(id: doomed.id)
            let kept = try await api.createNote(scientificName: names[1], fields: NoteFields(leaf: "kept"))
            _ = try await server.store.compact(olderThan: Date().addingTimeInterval(3600))
            let cursor = try await device.repository.store.cursor()
            await #expect(throws: OakClientError.self) { try await api.pull(since: cursor) }

            let pending = try await device.repository.create(scientificName: names[2], fields: NoteFields(leaf: "pending"))
            await device.engine.sync()

            let status = await device.engine.status
            #expect(status.state == .idle, Comment(rawValue: status.lastError ?? ""))
            #expect(try await device.repository.note(id: doomed.id) == nil)
            #expect(try await device.repository.note(id: kept.id)?.fields.leaf == "kept")
            #expect(try await device.repository.note(id: pending.id)?.syncStatus == .synced)
            #expect(try await api.note(id: pending.id).fields.leaf == "pending")
            #expect(try await device.repository.store.cursor() != cursor)
        }
    }
}
