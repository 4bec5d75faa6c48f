import Foundation
import OakClient
import OakModels
import OakSync
import OakTestSupport
import Testing

/// A sleeper that reports each call and returns only when the test releases it.
final class SteppedSleeper: Sleeper, @unchecked Sendable {
    let calls: AsyncStream<Void>
    private let callContinuation: AsyncStream<Void>.Continuation
    private let lock = NSLock()
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init() {
        (calls, callContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    func sleep(for duration: Duration) async throws {
        await withCheckedContinuation { continuation in
            lock.withLock { waiting.append(continuation) }
            callContinuation.yield()
        }
    }

    func release() {
        let sleepers = lock.withLock {
            defer { waiting = [] }
            return waiting
        }
        for sleeper in sleepers { sleeper.resume() }
    }
}

@Suite("Observation and connectivity", .timeLimit(.minutes(1)))
struct ObservationTests {
    @Test("Observing notes sees local writes and pulled changes")
    func observeNotes() async throws {
        try await LiveServer.run { server in
            let names = try await server.client().listSpecies(limit: 2).data.map(\.scientificName)
            let device = try Device(server: server, clock: WriteClock())
            var updates = device.repository.observe().makeAsyncIterator()
            #expect(await updates.next() == [])

            let mine = try await device.repository.create(scientificName: names[0], fields: NoteFields(leaf: "mine"))
            #expect(await updates.next()?.map(\.id) == [mine.id])

            let theirs = try await server.client().createNote(scientificName: names[1], fields: NoteFields(leaf: "theirs"))
            await device.engine.sync()
            var latest: [LocalNote] = []
            while let list = await updates.next() {
                latest = list
                if list.count == 2 && list.allSatisfy({ $0.syncStatus == .synced }) { break }
            }
            #expect(Set(latest.map(\.id)) == [mine.id, theirs.id])
        }
    }

    @Test("Health probing reports the server unreachable, then reachable again")
    func healthProbe() async throws {
        try await LiveServer.run { server in
            let network = FaultyTransport(seed: 3)
            network.online = false
            let sleeper = SteppedSleeper()
            let probe = HealthProbeConnectivity(client: server.client(transport: network), sleeper: sleeper)
            var rounds = sleeper.calls.makeAsyncIterator()
            _ = await rounds.next()
            #expect(await probe.isOnline == false)

            var changes = probe.changes().makeAsyncIterator()
            network.online = true
            sleeper.release()
            #expect(await changes.next() == true)
            #expect(await probe.isOnline)
        }
    }
}
