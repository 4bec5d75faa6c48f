import Foundation
import OakClient
import OakModels
import OakStore
import OakSync
import OakTestBasics
import OakTestSupport
import Testing

/// The known ways the sync promise was broken, each played by real devices (the SDK's engine over a real server on
/// loopback, on the backend the suites run on), and the per-field merge a person relies on.
@Suite("Sync rule: the known failure cases, on devices")
struct SyncRuleDeviceTests {
    private static func speciesNames(_ server: LiveServer, _ count: Int) async throws -> [String] {
        try await server.client().listSpecies(limit: count).data.map(\.scientificName)
    }

    @Test("per field: two devices edit different fields of a note offline and both edits stay; the same field keeps the later edit")
    func differentFieldsBothStay() async throws {
        try await LiveServer.run { server in
            let clock = WriteClock()
            let (phone, tablet) = (try Device(server: server, clock: clock), try Device(server: server, clock: clock))
            let name = try await Self.speciesNames(server, 1)[0]
            let note = try await phone.repository.create(scientificName: name, fields: NoteFields(leaf: "lobed", bark: "grey"))
            await phone.engine.sync()
            await tablet.engine.sync()
            phone.set(online: false)
            tablet.set(online: false)
            _ = try await phone.repository.update(id: note.id, fields: NoteFields(leaf: "deeply lobed", bark: "grey", form: "spreading"))
            _ = try await tablet.repository.update(id: note.id, fields: NoteFields(leaf: "lobed", bark: "scaly", form: "tall"))
            phone.set(online: true)
            tablet.set(online: true)
            for device in [phone, tablet, phone] { await device.engine.sync() }
            let expected = NoteFields(leaf: "deeply lobed", bark: "scaly", form: "tall")
            #expect(try await server.client().note(id: note.id).fields == expected)
            #expect(try await phone.repository.note(id: note.id)?.fields == expected)
            #expect(try await tablet.repository.note(id: note.id)?.fields == expected)
        }
    }

    @Test(
        "case 1, a later delete beats an earlier revival: a note brought back while its delete's answer was in flight stays deleted once another device deletes it later"
    )
    func laterDeleteBeatsRevival() async throws {
        try await LiveServer.run { server in
            let clock = WriteClock()
            let a = try Device(server: server, clock: clock, network: FaultyTransport(seed: 11))
            let b = try Device(server: server, clock: clock)
            let name = try await Self.speciesNames(server, 1)[0]
            let note = try await a.repository.create(scientificName: name, fields: NoteFields(leaf: "kept?"))
            await a.engine.sync()
            await b.engine.sync()
            _ = try await a.repository.delete(id: note.id)
            // While the delete's answer is on its way, the user brings the note back and edits it; then A loses its
            // network before it can push that.
            let revived = ManagedFlag()
            a.network.onResponse = { request in
                guard request.url.path.hasSuffix("/sync/push"), revived.setOnce() else { return }
                _ = try? await a.repository.create(scientificName: name, fields: NoteFields(leaf: "brought back"))
                a.set(online: false)
            }
            await a.engine.sync()
            a.network.onResponse = nil
            #expect(try await a.repository.note(id: note.id)?.fields.leaf == "brought back")
            // B, which never saw the revival, deletes the note later, and syncs first.
            _ = try await b.repository.delete(id: note.id)
            await b.engine.sync()
            a.set(online: true)
            await a.engine.sync()
            await b.engine.sync()
            await #expect(throws: OakClientError.self) { try await server.client().note(id: note.id) }
            #expect(try await a.repository.note(id: note.id) == nil)
            #expect(try await a.repository.pendingCount() == 0)
        }
    }

    @Test("case 2, a delete that arrives before the create it follows: the create's request timed out and arrives last; the note stays deleted")
    func deleteBeforeCreate() async throws {
        try await LiveServer.run { server in
            let holding = HoldingTransport()
            let network = FaultyTransport(seed: 2, base: holding)
            let device = try Device(server: server, clock: WriteClock(), network: network)
            await device.engine.sync()
            let name = try await Self.speciesNames(server, 1)[0]
            let note = try await device.repository.create(scientificName: name, fields: NoteFields(leaf: "made first"))
            holding.holdNextPush()
            await device.engine.sync()  // the push times out: the device never hears of it
            _ = try await device.repository.delete(id: note.id)
            holding.networkBack()
            await device.engine.sync()
            #expect(try await device.repository.pendingCount() == 0)
            // The create's request, held in the network, reaches the server last.
            let late = try #require(holding.takeHeld())
            _ = try await makeDefaultTransport().send(late)
            await #expect(throws: OakClientError.self) { try await server.client().note(id: note.id) }
            await device.engine.sync()
            #expect(try await device.repository.note(id: note.id) == nil)
        }
    }

    @Test("case 3, a slow clock does not turn history backwards: an edit made after v1 on a clock a minute slow beats an older offline edit")
    func slowClock() async throws {
        try await LiveServer.run { server in
            let clock = WriteClock()
            let slow = try Device(server: server, clock: clock, skew: -60)
            let offline = try Device(server: server, clock: clock)
            let name = try await Self.speciesNames(server, 1)[0]
            let note = try await offline.repository.create(scientificName: name, fields: NoteFields(leaf: "v0"))
            await offline.engine.sync()
            offline.set(online: false)
            _ = try await offline.repository.update(id: note.id, fields: NoteFields(leaf: "made before v1, offline"))
            // v1 is written on the server; the slow device sees it and edits after it by a clock a minute behind.
            _ = try await server.client().updateNote(id: note.id, fields: NoteFields(leaf: "v1"))
            await slow.engine.sync()
            _ = try await slow.repository.update(id: note.id, fields: NoteFields(leaf: "made after v1, slow clock"))
            await slow.engine.sync()
            offline.set(online: true)
            await offline.engine.sync()
            await slow.engine.sync()
            #expect(try await server.client().note(id: note.id).fields.leaf == "made after v1, slow clock")
            #expect(try await offline.repository.note(id: note.id)?.fields.leaf == "made after v1, slow clock")
        }
    }

    @Test(
        "case 4, a restore is always seen: after the restored server wrote past the device's cursor, the device still gets 410, pulls everything again and sends back what the server lost, to the millisecond"
    )
    func restoreIsSeen() async throws {
        let clock = WriteClock()
        let devicePath = temporaryDirectory("oak-device").appendingPathComponent("device.db").path
        let (store, database) = try await temporaryStore(.current, clock: { Date() })
        let (backup, lost) = try await LiveServer.run(on: (store, database)) { server in
            let names = try await Self.speciesNames(server, 3)
            let device = try Device(server: server, clock: clock, path: devicePath)
            let kept = try await device.repository.create(scientificName: names[0], fields: NoteFields(leaf: "before the backup"))
            await device.engine.sync()
            let backup = try await OperatorBackup.take(of: server.store, database: server.database)
            // After the backup: a new note, and an edit a few milliseconds after the note it edits was made.
            let lost = try await device.repository.create(scientificName: names[1], fields: NoteFields(leaf: "after the backup"))
            _ = try await device.repository.update(id: kept.id, fields: NoteFields(leaf: "edited after the backup"))
            await device.engine.sync()
            #expect(try await device.repository.pendingCount() == 0)
            return (backup, [kept.id, lost.id])
        }
        try OperatorBackup.close(store)
        let restored = try await backup.restore()
        try await LiveServer.run(on: (restored, database)) { server in
            // The restored server takes ten notes from another client: its log runs past the device's cursor.
            let api = server.client()
            for name in try await api.listSpecies(limit: 40).data.map(\.scientificName).suffix(10) {
                _ = try await api.createNote(scientificName: name, fields: NoteFields(leaf: "after the restore"))
            }
            let device = try Device(server: server, clock: clock, path: devicePath)
            await device.engine.sync()
            let status = await device.engine.status
            #expect(status.state == .idle, Comment(rawValue: status.lastError ?? ""))
            #expect(try await api.note(id: lost[0]).fields.leaf == "edited after the backup")
            #expect(try await api.note(id: lost[1]).fields.leaf == "after the backup")
            #expect(try await device.repository.notes().count == 12)
            #expect(try await device.repository.pendingCount() == 0)
        }
    }

    @Test("case 5, a note made again keeps its id: a delete of that id made later on another device still deletes it")
    func remadeNoteKeepsItsID() async throws {
        try await LiveServer.run { server in
            let clock = WriteClock()
            let (a, b) = (try Device(server: server, clock: clock), try Device(server: server, clock: clock))
            let name = try await Self.speciesNames(server, 1)[0]
            let first = try await a.repository.create(scientificName: name, fields: NoteFields(leaf: "first"))
            await a.engine.sync()
            await b.engine.sync()
            b.set(online: false)
            _ = try await a.repository.delete(id: first.id)
            await a.engine.sync()
            let again = try await a.repository.create(scientificName: name, fields: NoteFields(leaf: "made again"))
            #expect(again.id == first.id)
            await a.engine.sync()
            #expect(try await server.client().note(id: first.id).fields.leaf == "made again")
            // B saw the first note only, and deletes it later than it was made again.
            _ = try await b.repository.delete(id: first.id)
            b.set(online: true)
            await b.engine.sync()
            await a.engine.sync()
            #expect(try await server.client().notes().filter { $0.scientificName == name }.isEmpty)
            #expect(try await a.repository.notes(species: name).isEmpty)
        }
    }
}

/// A flag set once, from any task.
final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var set = false

    /// Sets the flag; true the first time only.
    func setOnce() -> Bool {
        lock.withLock {
            defer { set = true }
            return !set
        }
    }
}

/// The network did not answer in time.
struct TimedOut: Error {}

/// A network that can keep a push to itself: the device's request times out (every request fails while one is
/// held, as a network that went away), and the test delivers the held request later.
final class HoldingTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private let base = makeDefaultTransport()
    private var holding = false
    private var held: TransportRequest?

    func holdNextPush() {
        lock.withLock { holding = true }
    }

    /// The network works again; the held request stays held.
    func networkBack() {
        lock.withLock { holding = false }
    }

    /// The held request, to deliver late.
    func takeHeld() -> TransportRequest? {
        lock.withLock {
            defer { held = nil }
            return held
        }
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let holds = lock.withLock {
            guard holding else { return false }
            if held == nil, request.url.path.hasSuffix("/sync/push") { held = request }
            return true
        }
        if holds { throw TimedOut() }
        return try await base.send(request)
    }
}
