import Foundation
import HummingbirdTesting
import Testing

@Suite("Sources API")
struct SourcesRoutesTests {
    @Test("list sources as a bare array with the three standard sources")
    func listStandardSources() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let sources = try await client.send(.get, "/api/v1/sources").array()
            #expect(sources.compactMap { $0["id"] as? Int } == [1, 2, 3])
            #expect(names(sources, "name") == ["iNaturalist", "Oaks of the World", "Oak Compendium"])
            #expect(sources[0].keys.contains("license_url"))
        }
    }

    @Test("create, get, update and delete a source")
    func crud() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let created = try await client.send(
                .post, "/api/v1/sources", json: #"{"source_type": "book", "name": "Oaks of North America", "author": "A. Writer", "year": 2023}"#)
            #expect(created.status == .created)
            let id = try #require(try created.object()["id"] as? Int)
            #expect(id > 3)
            let fetched = try await client.send(.get, "/api/v1/sources/\(id)").object()
            #expect(fetched["year"] as? Int == 2023)
            #expect(fetched["isbn"] == nil)

            let updated = try await client.send(.put, "/api/v1/sources/\(id)", json: #"{"isbn": "978-0-00-000000-0", "author": null}"#)
            #expect(updated.status == .ok)
            let body = try updated.object()
            #expect(body["isbn"] as? String == "978-0-00-000000-0")
            #expect(body["author"] == nil)
            #expect(body["name"] as? String == "Oaks of North America")

            #expect(try await client.send(.delete, "/api/v1/sources/\(id)").status == .noContent)
            #expect(try await client.send(.get, "/api/v1/sources/\(id)").status == .notFound)
        }
    }

    @Test("missing sources answer 404 on get, update and delete")
    func notFound() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let get = try await client.send(.get, "/api/v1/sources/999")
            #expect(get.status == .notFound)
            #expect(try get.error().code == "NOT_FOUND")
            let update = try await client.send(.put, "/api/v1/sources/999", json: #"{"name": "x"}"#)
            #expect(update.status == .notFound)
            let delete = try await client.send(.delete, "/api/v1/sources/999")
            #expect(delete.status == .notFound)
            let badId = try await client.send(.get, "/api/v1/sources/abc")
            #expect(badId.status == .badRequest)
        }
    }

    @Test("create a source without required fields answers 400 naming each")
    func requiredFields() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let response = try await client.send(.post, "/api/v1/sources", json: #"{"year": 1999}"#)
            #expect(response.status == .badRequest)
            #expect(Set(try response.invalidFields()) == ["source_type", "name"])
            let cleared = try await client.send(.put, "/api/v1/sources/1", json: #"{"name": null}"#)
            #expect(cleared.status == .badRequest)
        }
    }

    @Test("delete of a source that species data uses answers 409")
    func deleteBlocked() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            try await client.send(.post, "/api/v1/species/alba/sources", json: #"{"source_id": 2}"#)
            let response = try await client.send(.delete, "/api/v1/sources/2")
            #expect(response.status == .conflict)
            #expect(try response.error().details["blocking_species"] as? [String] == ["alba"])
        }
    }

    @Test("sources routes work through a real socket")
    func liveSocket() async throws {
        let env = try await TestEnvironment()
        try await env.test(.live) { client in
            let created = try await client.send(.post, "/api/v1/sources", json: #"{"source_type": "paper", "name": "Live"}"#)
            #expect(created.status == .created)
        }
    }
}
