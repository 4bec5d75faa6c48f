import Foundation
import HummingbirdTesting
import Testing

@Suite("Species sources API")
struct SpeciesSourcesRoutesTests {
    @Test("create, list, get, update and delete a species' source data")
    func crud() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let created = try await client.send(
                .post, "/api/v1/species/alba/sources",
                json: #"{"source_id": 2, "local_names": ["white oak"], "leaves": "7-9 rounded lobes", "bark": "pale grey"}"#)
            #expect(created.status == .created)
            let body = try created.object()
            #expect(body["scientific_name"] as? String == "alba")
            #expect(body["is_preferred"] as? Bool == false)
            #expect(body["flowers"] == nil)

            let list = try await client.send(.get, "/api/v1/species/alba/sources").array()
            #expect(list.count == 1)
            let get = try await client.send(.get, "/api/v1/species/alba/sources/2").object()
            #expect(get["local_names"] as? [String] == ["white oak"])

            let updated = try await client.send(.put, "/api/v1/species/alba/sources/2", json: #"{"bark": null, "fruits": "acorn 2 cm"}"#)
            #expect(updated.status == .ok)
            let stored = try await client.send(.get, "/api/v1/species/alba/sources/2").object()
            #expect(stored["bark"] == nil)
            #expect(stored["fruits"] as? String == "acorn 2 cm")
            #expect(stored["leaves"] as? String == "7-9 rounded lobes")
            #expect(stored["uuid"] as? String == body["uuid"] as? String)

            #expect(try await client.send(.delete, "/api/v1/species/alba/sources/2").status == .noContent)
            #expect(try await client.send(.get, "/api/v1/species/alba/sources").array().isEmpty)
        }
    }

    @Test("source-3 rows default to preferred")
    func personalObservationPreferred() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let created = try await client.send(.post, "/api/v1/species/robur/sources", json: #"{"source_id": 3}"#)
            #expect(try created.object()["is_preferred"] as? Bool == true)
        }
    }

    @Test("species sources of a missing species answer 404")
    func missingSpecies() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let list = try await client.send(.get, "/api/v1/species/ghost/sources")
            #expect(list.status == .notFound)
            let create = try await client.send(.post, "/api/v1/species/ghost/sources", json: #"{"source_id": 1}"#)
            #expect(create.status == .notFound)
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources") == 0)
        }
    }

    @Test("a missing species-source row answers 404 on get, update and delete")
    func missingRow() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            #expect(try await client.send(.get, "/api/v1/species/alba/sources/1").status == .notFound)
            let update = try await client.send(.put, "/api/v1/species/alba/sources/1", json: #"{"leaves": "x"}"#)
            #expect(update.status == .notFound)
            #expect(try await client.send(.delete, "/api/v1/species/alba/sources/1").status == .notFound)
        }
    }

    @Test("create without source_id answers 400, with an unknown one 400 naming source_id; a second row for the pair answers 409")
    func sourceIdAndDuplicate() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let missing = try await client.send(.post, "/api/v1/species/alba/sources", json: #"{"leaves": "x"}"#)
            #expect(missing.status == .badRequest)
            #expect(try missing.invalidFields() == ["source_id"])
            let unknown = try await client.send(.post, "/api/v1/species/alba/sources", json: #"{"source_id": 77}"#)
            #expect(unknown.status == .badRequest)
            #expect(try unknown.invalidFields() == ["source_id"])
            let first = try await client.send(.post, "/api/v1/species/alba/sources", json: #"{"source_id": 1}"#)
            let duplicate = try await client.send(.post, "/api/v1/species/alba/sources", json: #"{"source_id": 1}"#)
            #expect(duplicate.status == .conflict)
            #expect(try duplicate.error().details["id"] as? String == first.object()["uuid"] as? String)
        }
    }

    @Test("species sources routes work through a real socket")
    func liveSocket() async throws {
        let env = try await TestEnvironment()
        try await env.test(.live) { client in
            let created = try await client.send(.post, "/api/v1/species/ilex/sources", json: #"{"source_id": 1, "leaves": "holly-like"}"#)
            #expect(created.status == .created)
            #expect(try await client.send(.get, "/api/v1/species/ilex/sources/1").object()["leaves"] as? String == "holly-like")
        }
    }
}
