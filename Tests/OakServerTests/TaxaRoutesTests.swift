import Foundation
import HummingbirdTesting
import Testing

@Suite("Taxa API")
struct TaxaRoutesTests {
    @Test("list taxa with level and parent filters")
    func listWithFilters() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let all = try await client.send(.get, "/api/v1/taxa")
            #expect(all.status == .ok)
            #expect(try all.data().count >= 10)
            let sections = try await client.send(.get, "/api/v1/taxa?level=section").data()
            #expect(sections.allSatisfy { $0["level"] as? String == "section" })
            #expect(names(sections, "name").contains("Lobatae"))
            let cerrisSections = try await client.send(.get, "/api/v1/taxa?level=section&parent=Cerris").data()
            #expect(Set(names(cerrisSections, "name")) == ["Cerris", "Ilex", "Cyclobalanopsis"])
            let byPath = try await client.send(.get, "/api/v1/taxa/subgenus").data()
            #expect(Set(names(byPath, "name")) == ["Quercus", "Cerris"])
        }
    }

    @Test("invalid taxon level answers 400")
    func invalidLevel() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let list = try await client.send(.get, "/api/v1/taxa?level=genus")
            #expect(list.status == .badRequest)
            #expect(try list.invalidFields() == ["level"])
            let get = try await client.send(.get, "/api/v1/taxa/tribe/Quercus")
            #expect(get.status == .badRequest)
            let create = try await client.send(.post, "/api/v1/taxa", json: #"{"name": "X", "level": "family"}"#)
            #expect(create.status == .badRequest)
            #expect(try create.invalidFields() == ["level"])
        }
    }

    @Test("get a taxon; an unknown one is 404")
    func getAndNotFound() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let section = try await client.send(.get, "/api/v1/taxa/section/Lobatae")
            #expect(section.status == .ok)
            let body = try section.object()
            #expect(body["parent"] as? String == "Quercus")
            #expect(body["links"] == nil && body["notes"] == nil)
            let missing = try await client.send(.get, "/api/v1/taxa/section/Nowhere")
            #expect(missing.status == .notFound)
            #expect(try missing.error().code == "NOT_FOUND")
        }
    }

    @Test("create, update and delete a taxon")
    func createUpdateDelete() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let created = try await client.send(
                .post, "/api/v1/taxa",
                json: #"{"name": "Albae", "level": "subsection", "parent": "Quercus", "links": [{"title": "Ref", "url": "https://example.org"}]}"#)
            #expect(created.status == .created)
            let duplicate = try await client.send(.post, "/api/v1/taxa", json: #"{"name": "Albae", "level": "subsection"}"#)
            #expect(duplicate.status == .conflict)

            let updated = try await client.send(.put, "/api/v1/taxa/subsection/Albae", json: #"{"notes": "White oaks proper", "links": null}"#)
            #expect(updated.status == .ok)
            let body = try updated.object()
            #expect(body["notes"] as? String == "White oaks proper")
            #expect(body["parent"] as? String == "Quercus")
            #expect(body["links"] == nil)

            let deleted = try await client.send(.delete, "/api/v1/taxa/subsection/Albae")
            #expect(deleted.status == .noContent)
            #expect(try await env.count("SELECT COUNT(*) FROM taxa WHERE name = 'Albae'") == 0)
        }
    }

    @Test("a taxon whose parent does not exist one level up is a 400 naming parent, on create and update; nothing changes")
    func parentMustExist() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let response = try await client.send(.post, "/api/v1/taxa", json: #"{"name": "Orphans", "level": "section", "parent": "Nope"}"#)
            #expect(response.status == .badRequest)
            #expect(try response.error().code == "VALIDATION_ERROR")
            #expect(try response.invalidFields() == ["parent"])
            #expect(try await env.count("SELECT COUNT(*) FROM taxa WHERE name = 'Orphans'") == 0)
            let created = try await client.send(.post, "/api/v1/taxa", json: #"{"name": "Orphans", "level": "section", "parent": "Quercus"}"#)
            #expect(created.status == .created)
            let update = try await client.send(.patch, "/api/v1/taxa/section/Orphans", json: #"{"parent": "Nope"}"#)
            #expect(update.status == .badRequest)
            #expect(try update.invalidFields() == ["parent"])
            #expect(try await client.send(.get, "/api/v1/taxa/section/Orphans").object()["parent"] as? String == "Quercus")
        }
    }

    @Test("update or delete of a missing taxon answers 404")
    func missingTaxon() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let update = try await client.send(.put, "/api/v1/taxa/section/Nowhere", json: #"{"notes": "x"}"#)
            #expect(update.status == .notFound)
            let delete = try await client.send(.delete, "/api/v1/taxa/section/Nowhere")
            #expect(delete.status == .notFound)
        }
    }

    @Test("delete of a taxon with children or species answers 409 with what blocks it")
    func deleteBlocked() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let subgenus = try await client.send(.delete, "/api/v1/taxa/subgenus/Cerris")
            #expect(subgenus.status == .conflict)
            #expect((try subgenus.error().details["blocking_taxa"] as? [String])?.contains("Ilex") == true)
            let section = try await client.send(.delete, "/api/v1/taxa/section/Lobatae")
            #expect(section.status == .conflict)
            #expect((try section.error().details["blocking_species"] as? [String])?.contains("rubra") == true)
            #expect(try await env.count("SELECT COUNT(*) FROM taxa WHERE name = 'Lobatae'") == 1)
        }
    }

    @Test("taxa routes work through a real socket")
    func liveSocket() async throws {
        let env = try await TestEnvironment()
        try await env.test(.live) { client in
            let response = try await client.send(.get, "/api/v1/taxa/subgenus/Quercus")
            #expect(try response.object()["author"] as? String == "L.")
        }
    }
}
