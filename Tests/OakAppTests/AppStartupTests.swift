import Foundation
import OakApp
import OakModels
import OakStore
import OakSync
import OakTestBasics
import OakTestSupport
import Testing

@Suite("Starting the app")
@MainActor
struct AppStartupTests {
    @Test("a background refresh before any window: the app is built and launched once, and syncs the note the last run left waiting")
    func backgroundRefreshBeforeAnyWindow() async throws {
        try await withServer { server in
            let directory = temporaryDirectory("oak-startup")
            defer { try? FileManager.default.removeItem(at: directory) }
            let storage = DeviceStorage.file(directory.appendingPathComponent("device.db").path)
            // The last run, without a server: a note waits to upload.
            let earlier = try TestApp(storage: storage)
            await earlier.app.launch()
            let form = earlier.app.newNote(species: "alba")
            await form.load()
            let id = try #require(await form.create())

            var built = 0
            let startup = AppStartup {
                built += 1
                return try TestApp(server: server, storage: storage).app
            }
            #expect(startup.app == nil)
            // The system wakes the app for a refresh while its window is being made.
            async let refreshed = startup.backgroundRefresh()
            async let shown = startup.start()
            #expect(await refreshed)
            let window = try #require(await shown)
            #expect(window === startup.app)
            #expect(built == 1)
            #expect(startup.problem == nil)
            let stored = try await server.store.notes(species: "alba", sourceId: Source.personalObservationID)
            #expect(stored.map(\.id) == [id])
            #expect(!window.browser.groups.isEmpty, "the launch imported the catalog and started the screens")
        }
    }

    @Test("a store that cannot open: the window says why, a background refresh reports failure, the next start tries again")
    func storeThatCannotOpen() async throws {
        var attempts = 0
        let startup = AppStartup {
            attempts += 1
            return try TestApp(storage: .file("/proc/oak-no-such-place/device.db")).app
        }
        #expect(await startup.backgroundRefresh() == false)
        #expect(startup.app == nil)
        let problem = try #require(startup.problem)
        #expect(!problem.isEmpty)
        #expect(await startup.start() == nil)
        #expect(attempts == 2)
    }
}
