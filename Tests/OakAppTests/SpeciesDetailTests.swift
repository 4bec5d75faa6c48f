import Foundation
import OakModels
import OakStore
import OakSync
import OakTestSupport
import Testing

@testable import OakApp

@Suite("Species detail")
@MainActor
struct SpeciesDetailTests {
    @Test("a hybrid's page shows its taxonomy path, parents, and links to relatives")
    func hybridPage() async throws {
        let test = try TestApp()
        await test.app.launch()
        let detail = test.app.speciesDetail("x bebbiana")
        detail.start()
        try await eventually("the species is loaded") { detail.species != nil }
        #expect(detail.name == "× bebbiana")
        #expect(detail.taxonomyPath == ["Quercus", "Quercus", "Quercus", "× bebbiana"])
        #expect(detail.parents == ["Quercus alba", "Quercus macrocarpa"])
        let alba = test.app.speciesDetail("alba")
        alba.start()
        try await eventually("alba is loaded") { alba.species != nil }
        #expect(alba.hybrids.contains("× bebbiana"))
        detail.stop()
        alba.stop()
    }

    @Test("every source's data is shown with the source's name and license, the user's own note first, markdown kept for rendering")
    func sourceEntries() async throws {
        try await withServer { server in
            var patch = SpeciesSourcePatch()
            patch.sourceId = .value(Source.iNaturalistID)
            patch.leaves = .value("Lobes **rounded**, 7–9")
            patch.flowers = .value("Catkins in *spring*")
            patch.hardinessHabitat = .value("Zones 3–9; dry uplands")
            patch.isPreferred = .value(true)
            _ = try await server.store.createSpeciesSource(of: "alba", with: patch)
            let test = try TestApp(server: server)
            await test.app.launch()
            try await eventually("the first sync") { test.app.sync.status.lastSuccessfulSync != nil }
            try await test.app.device.notes.create(scientificName: "alba", fields: NoteFields(leaf: "My own look at the leaf"))
            let detail = test.app.speciesDetail("Quercus alba")
            detail.start()
            try await eventually("both entries") { detail.entries.count == 2 }
            let own = detail.entries[0]
            #expect(own.isOwnNote)
            #expect(own.sourceId == Source.personalObservationID)
            #expect(own.fields == [LabeledText(label: "Leaf", markdown: "My own look at the leaf")])
            let reference = detail.entries[1]
            let source = try await server.store.source(id: Source.iNaturalistID)
            #expect(reference.sourceName == source.name)
            #expect(reference.license == source.license)
            #expect(reference.isPreferred)
            #expect(reference.fields.contains(LabeledText(label: "Leaf", markdown: "Lobes **rounded**, 7–9")))
            #expect(reference.fields.contains(LabeledText(label: "Flowers", markdown: "Catkins in *spring*")))
            #expect(reference.fields.contains(LabeledText(label: "Hardiness & habitat", markdown: "Zones 3–9; dry uplands")))
            #expect(detail.hasOwnNote)
            detail.stop()
        }
    }

    @Test("external links are read from objects and plain URLs")
    func externalLinks() throws {
        let links = [
            JSONValue.object(["url": .string("https://example.org/oaks/alba"), "name": .string("Example")]),
            .string("https://plants.example.net/q-alba"), .object(["label": .string("no url")]), .number(3),
        ].compactMap(SpeciesDetailModel.link)
        #expect(links.map(\.title) == ["Example", "plants.example.net"])
        #expect(links.map(\.url.absoluteString) == ["https://example.org/oaks/alba", "https://plants.example.net/q-alba"])
    }
}
