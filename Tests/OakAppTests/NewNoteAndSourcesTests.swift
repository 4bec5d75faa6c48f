import Foundation
import OakApp
import OakModels
import OakStore
import OakSync
import OakTestSupport
import Testing

@Suite("New note and sources")
@MainActor
struct NewNoteAndSourcesTests {
    @Test(
        "the species picker suggests from the local catalog as the user types; personal observation is the default source; a species that has a note opens it")
    func speciesAutocomplete() async throws {
        let test = try TestApp()
        await test.app.launch()
        let form = test.app.newNote()
        await form.load()
        #expect(form.sourceID == Source.personalObservationID)
        #expect(form.sources.map(\.id).contains(Source.personalObservationID))
        form.speciesQuery = "m"
        form.speciesQuery = "macro"
        try await eventually("suggestions") { form.suggestions.map(\.name).prefix(2) == ["macrocarpa", "macrolepis"] }
        form.speciesQuery = "macroc"
        try await eventually("one suggestion") { form.suggestions.map(\.name) == ["macrocarpa"] }
        #expect(!form.canCreate)
        form.selectedSpecies = form.suggestions[0].name
        let id = try #require(await form.create())
        let note = try #require(try await test.app.device.notes.note(id: id))
        #expect(note.scientificName == "macrocarpa")
        #expect(note.taxonomy.subgenus == "Quercus")
        // "New note" on a species that has one opens that note instead of refusing.
        #expect(await form.create() == id)
        #expect(form.errorMessage == nil)
        #expect(try await test.app.device.notes.notes(species: "macrocarpa").map(\.id) == [id])
    }

    @Test("a species not in the catalog is placed with the taxonomy pickers, created offline, and synced with its note when online")
    func newSpeciesOfflineThenSynced() async throws {
        try await withServer { server in
            let test = try TestApp(server: server, online: false)
            await test.app.launch()
            let form = test.app.newNote()
            await form.load()
            form.isNewSpecies = true
            form.newSpeciesName = "Quercus fieldensis"
            #expect(form.subgenusOptions == ["Cerris", "Quercus"])
            form.subgenus = "Quercus"
            #expect(form.sectionOptions.contains("Lobatae"))
            #expect(!form.sectionOptions.contains("Ilex"))
            form.section = "Lobatae"
            let id = try #require(await form.create())
            try await test.app.device.notes.update(id: id, fields: NoteFields(fieldNotes: "Found by the creek"))
            try await eventually("the species is listed as pending") {
                test.app.browser.groups.flatMap(\.rows).first { $0.name == "fieldensis" }?.isPending == true
            }
            test.set(online: true)
            try await eventually("the note is synced") { test.app.notesList.rows.first { $0.species == "fieldensis" }?.state == .synced }
            let species = try await server.store.species(named: "fieldensis")
            #expect(species.section == "Lobatae")
            #expect(
                try await server.store.notes(species: "fieldensis", sourceId: Source.personalObservationID).first?.fields.fieldNotes == "Found by the creek")
            try await eventually("the species is no longer pending") {
                test.app.browser.groups.flatMap(\.rows).first { $0.name == "fieldensis" }?.isPending == false
            }
        }
    }

    @Test("a new species with an invalid name is refused with the reason, and nothing is created")
    func newSpeciesInvalid() async throws {
        let test = try TestApp()
        await test.app.launch()
        let form = test.app.newNote()
        await form.load()
        form.isNewSpecies = true
        form.newSpeciesName = "x"
        #expect(await form.create() == nil)
        #expect(form.errorMessage?.contains("scientific_name") == true)
        #expect(try await test.app.store.catalog().species.count == 96)
    }

    @Test("sources: add and edit offline, then sync; the server numbers the new source and notes follow it")
    func sourcesSynced() async throws {
        try await withServer { server in
            let test = try TestApp(server: server, online: false)
            await test.app.launch()
            let sources = test.app.sources
            var form = sources.form(for: nil)
            form.name = "Field Guide to Oaks"
            form.author = "A. Walker"
            form.year = "2019"
            form.url = "https://example.org/guide"
            form.license = "CC BY 4.0"
            #expect(await sources.save(form, id: nil))
            try await eventually("the source is listed as pending") {
                sources.rows.first { $0.source.name == "Field Guide to Oaks" }?.state == .pendingUpload
            }
            let local = try #require(sources.rows.first { $0.source.name == "Field Guide to Oaks" })
            #expect(local.source.id < 0)
            var edit = sources.form(for: local.id)
            edit.year = "2020"
            #expect(await sources.save(edit, id: local.id))
            try await test.app.device.notes.create(scientificName: "alba", sourceId: local.id, fields: NoteFields(leaf: "From the guide"))
            test.set(online: true)
            try await eventually("the source is synced") {
                sources.rows.first { $0.source.name == "Field Guide to Oaks" }?.state == .synced
            }
            let synced = try #require(sources.rows.first { $0.source.name == "Field Guide to Oaks" })
            #expect(synced.source.id > 0)
            let stored = try await server.store.source(id: synced.source.id)
            #expect(stored.year == 2020)
            #expect(stored.license == "CC BY 4.0")
            try await eventually("the note on it is synced") {
                (try? await server.store.notes(species: "alba", sourceId: synced.source.id).first?.fields.leaf) == "From the guide"
            }
            #expect(try await server.store.listSources().filter { $0.name == "Field Guide to Oaks" }.count == 1)
        }
    }

    @Test("a source form with a year that is not a number is refused naming the field, and nothing is saved")
    func sourceFormInvalid() async throws {
        let test = try TestApp()
        await test.app.launch()
        var form = SourceForm()
        form.name = "Notebook"
        form.year = "last spring"
        #expect(await test.app.sources.save(form, id: nil) == false)
        #expect(test.app.sources.errorMessage?.contains("year") == true)
        var unnamed = SourceForm()
        unnamed.name = "  "
        #expect(await test.app.sources.save(unnamed, id: nil) == false)
        #expect(test.app.sources.errorMessage?.contains("name") == true)
        #expect(try await test.app.store.catalog().sources.allSatisfy { $0.id > 0 })
    }
}
