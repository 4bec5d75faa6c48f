import Foundation
import OakClient
import OakModels
import OakSync
import OakTestSupport
import Testing

/// The engine's automatic triggers, with the test sleeper (durations scaled down 1000 times).
@Suite("Sync triggers")
struct SyncTriggerTests {
    /// The first value of `stream` that satisfies `condition`, or nil after `seconds` (so a broken trigger fails
    /// the test instead of hanging it).
    static func first<Element: Sendable>(
        _ stream: AsyncStream<Element>, within seconds: Double = 20, where condition: @escaping @Sendable (Element) -> Bool
    ) async -> Element? {
        await withTaskGroup(of: Element?.self) { group in
            group.addTask {
                for await value in stream where condition(value) { return value }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let result = await group.next() ?? nil
            group.cancelAll()
            return result
        }
    }

    @Test("A local write triggers a debounced sync")
    func debouncedAfterWrite() async throws {
        try await LiveServer.run { server in
            let name = try #require(try await server.client().listSpecies(limit: 1).data.first?.scientificName)
            let device = try Device(server: server, clock: WriteClock())
            await device.engine.start()
            let note = try await device.repository.create(scientificName: name, fields: NoteFields(bark: "debounced"))
            let synced = await Self.first(device.engine.statusUpdates()) { $0.state == .idle && $0.pendingCount == 0 && $0.lastSuccessfulSync != nil }
            await device.engine.stop()
            #expect(synced != nil)
            #expect(try await server.client().note(id: note.id).fields.bark == "debounced")
        }
    }

    @Test("The periodic timer pulls what other devices wrote")
    func periodicPull() async throws {
        try await LiveServer.run { server in
            let name = try #require(try await server.client().listSpecies(limit: 1).data.first?.scientificName)
            let device = try Device(server: server, clock: WriteClock())
            await device.engine.start()
            // The start-up sync first; what is written after it can only arrive by the timer.
            _ = await Self.first(device.engine.statusUpdates()) { $0.state == .idle && $0.lastSuccessfulSync != nil }
            let remote = try await server.client().createNote(scientificName: name, fields: NoteFields(leaf: "from elsewhere"))
            let seen = await Self.first(device.repository.observe()) { notes in notes.contains { $0.id == remote.id } }
            await device.engine.stop()
            #expect(seen != nil)
        }
    }

    @Test("Coming to the foreground syncs at once")
    func foreground() async throws {
        try await LiveServer.run { server in
            let name = try #require(try await server.client().listSpecies(limit: 1).data.first?.scientificName)
            var configuration = testSyncConfiguration
            configuration.period = .seconds(86_400)
            let device = try Device(server: server, clock: WriteClock(), configuration: configuration)
            let remote = try await server.client().createNote(scientificName: name, fields: NoteFields(leaf: "while away"))
            await device.engine.appWillEnterForeground()
            let seen = await Self.first(device.repository.observe()) { notes in notes.contains { $0.id == remote.id } }
            #expect(seen != nil)
        }
    }
}
