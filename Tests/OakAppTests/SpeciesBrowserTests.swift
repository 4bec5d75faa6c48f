import Foundation
import OakApp
import OakClient
import OakModels
import OakStore
import OakSync
import OakTestSupport
import Testing

@Suite("Species browser")
@MainActor
struct SpeciesBrowserTests {
    @Test("first launch with no network shows the whole starter catalog, grouped by subgenus and section")
    func firstLaunchOfflineShowsWholeCatalog() async throws {
        let unreachable = URL(string: "http://127.0.0.1:9")!
        let test = try TestApp(online: false)
        test.preferences.setServerURL(unreachable)
        await test.app.launch()
        let browser = test.app.browser
        let starter = try StarterCatalog.bundled()
        try await eventually("the catalog is listed") { browser.names.count == starter.species.count }
        #expect(Set(browser.names) == Set(starter.species.map(\.name)))
        #expect(browser.speciesCount == 96)
        let titles = browser.groups.map(\.title)
        #expect(titles.contains("Quercus › Lobatae"))
        #expect(titles.contains("Cerris › Ilex"))
        #expect(titles == titles.sorted(by: Formatting.groupOrder))
        let lobatae = try #require(browser.groups.first { $0.title == "Quercus › Lobatae" })
        #expect(lobatae.rows.map(\.name) == lobatae.rows.map(\.name).sorted())
        #expect(lobatae.rows.contains { $0.name == "rubra" })
    }

    @Test("hybrids are marked × in the list")
    func hybridsMarked() async throws {
        let test = try TestApp()
        await test.app.launch()
        try await eventually("the catalog is listed") { test.app.browser.names.count == 96 }
        let rows = test.app.browser.groups.flatMap(\.rows)
        let bebbiana = try #require(rows.first { $0.name == "× bebbiana" })
        #expect(bebbiana.isHybrid)
        #expect(bebbiana.title == "Quercus × bebbiana")
        #expect(rows.first { $0.name == "alba" }?.title == "Quercus alba")
        #expect(rows.first { $0.name == "alba" }?.isHybrid == false)
    }

    @Test("search as you type: each keystroke narrows the list, ranked exact, then prefix, then the rest")
    func searchAsYouType() async throws {
        let test = try TestApp()
        await test.app.launch()
        let browser = test.app.browser
        try await eventually("the catalog is listed") { browser.names.count == 96 }
        browser.searchText = "a"
        browser.searchText = "al"
        browser.searchText = "alba"
        try await eventually("results for 'alba'") { browser.groups.map(\.title) == ["Search results"] && browser.names.first == "alba" }
        #expect(browser.names.contains("× bebbiana") == false)
        browser.searchText = "x beb"
        try await eventually("the hybrid by its typed spelling") { browser.names == ["× bebbiana"] }
        browser.searchText = "Quercus pedunc"
        try await eventually("a species found by its synonym") { browser.names == ["robur"] }
        browser.searchText = "zzzz"
        try await eventually("no results") { browser.groups.isEmpty }
        browser.searchText = ""
        try await eventually("the grouped list is back") { browser.names.count == 96 && browser.groups.count > 1 }
    }

    @Test("offline search ranks the starter catalog exactly as the server's search does")
    func offlineSearchMatchesServer() async throws {
        try await withServer { server in
            let store = try LocalStore.inMemory()
            try await store.importStarterCatalog(try StarterCatalog.bundled())
            let client = server.client()
            for query in ["alba", "al", "a", "rub", "Quercus rub", "x beb", "× bebbiana", "bebb", "virg", "var", "chrysolepis", "lob", "ALBA", "ilex", "q"] {
                let offline = try await store.searchSpecies(query, limit: 50).map(\.scientificName)
                let online = try await client.searchSpecies(query: query, limit: 50).data.map(\.scientificName)
                #expect(offline == online, "query '\(query)'")
            }
        }
    }

    @Test("the browser updates live when a pull brings a new species")
    func updatesAfterPull() async throws {
        try await withServer { server in
            let test = try TestApp(server: server)
            await test.app.launch()
            try await eventually("the first sync") { test.app.sync.status.lastSuccessfulSync != nil }
            var patch = SpeciesPatch()
            patch.scientificName = .value("testiana")
            patch.subgenus = .value("Quercus")
            patch.section = .value("Quercus")
            _ = try await server.store.createSpecies(patch)
            await test.app.sync.refresh()
            try await eventually("the new species is listed") { test.app.browser.names.contains("testiana") }
        }
    }
}

@Suite("Navigation")
@MainActor
struct NavigationTests {
    @Test("side by side (iPad): choosing in a list shows that screen in the detail column, replacing what was there; compact stacks keep their path")
    func splitViewSelection() {
        let navigation = Navigation()
        #expect(navigation.speciesSelection == nil)
        navigation.speciesSelection = .species("alba")
        #expect(navigation.speciesPath == [.species("alba")])
        // A page pushed from the species' page (a related species) stays on the detail column's stack…
        navigation.showSpecies("bicolor")
        #expect(navigation.speciesSelection == .species("alba"))
        #expect(navigation.speciesPath == [.species("alba"), .species("bicolor")])
        // …until another species is chosen in the list.
        navigation.speciesSelection = .species("rubra")
        #expect(navigation.speciesPath == [.species("rubra")])
        let note = UUID()
        navigation.showNote(note)
        #expect(navigation.tab == .notes)
        #expect(navigation.notesSelection == .note(note))
        navigation.notesSelection = nil
        #expect(navigation.notesPath.isEmpty)
    }
}
