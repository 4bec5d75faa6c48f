import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import OakModels
import OakStore
import Testing

@testable import OakServer

@Suite("Species records held in memory (GET /species/{name})")
struct SpeciesRecordsTests {
    private func author(_ response: TestResponse) throws -> String? {
        (try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])?["author"] as? String
    }

    @Test(
        "a record read once answers every query of that spelling from memory (each spelling is read once: two spellings may be two stored species), and a write of the species is seen at once"
    )
    func heldUntilItsRowChanges() async throws {
        let env = try await TestEnvironment(backend: .sqlite)
        let records = SpeciesRecords(store: env.store)
        let router = Router(context: OakRequestContext.self)
        router.get("/api/v1/species/:name") { _, context in try await records.response(named: try context.pathParameter("name")) }
        try await Application(router: router).test(.router) { client in
            let first = try await client.execute(uri: "/api/v1/species/alba?n=1", method: .get)
            #expect(first.status == .ok)
            #expect(first.headers[.eTag]?.hasPrefix("\"") == true)
            let original = try author(first)
            for uri in ["/api/v1/species/alba?n=2", "/api/v1/species/Quercus%20alba", "/api/v1/species/%20alba"] {
                let again = try await client.execute(uri: uri, method: .get)
                #expect(again.body == first.body && again.headers[.eTag] == first.headers[.eTag])
            }
            #expect(records.count == 3)

            var patch = SpeciesPatch()
            patch.author = .value("L. (edited in place)")
            _ = try await env.store.updateSpecies(named: "alba", with: patch)
            let edited = try await client.execute(uri: "/api/v1/species/alba?n=3", method: .get)
            #expect(try author(edited) == "L. (edited in place)")
            #expect(try author(edited) != original)
            #expect(edited.headers[.eTag] != first.headers[.eTag])

            // A note written for alba does not change its record: it stays in memory.
            _ = try await env.store.createNote(NoteInput(scientificName: "alba"))
            #expect(try await client.execute(uri: "/api/v1/species/alba?n=4", method: .get).body == edited.body)

            // Another program writing the file directly is seen within the second the store takes to notice.
            try await DatabaseQueue(path: env.database).write { db in
                try db.execute(sql: "UPDATE oak_entries SET author = 'Written by another tool' WHERE scientific_name = 'alba'")
            }
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try author(try await client.execute(uri: "/api/v1/species/alba?n=5", method: .get)) == "Written by another tool")

            // An unknown name fails as the store says (a 404 once the app's error middleware maps it), and
            // nothing is held for it.
            #expect(try await client.execute(uri: "/api/v1/species/nonexistentia", method: .get).status != .ok)
            #expect(records.count == 1)
        }
    }
}
