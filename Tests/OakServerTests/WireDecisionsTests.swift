import Foundation
import HummingbirdTesting
import Testing

@Suite("Wire decisions, validation and auth")
struct WireDecisionsTests {
    @Test("writes without a key or with a wrong key answer 401; reads are public; X-API-Key works")
    func writeAuth() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let anonymous = try await client.send(.post, "/api/v1/species", json: #"{"scientific_name": "anon"}"#, key: nil)
            #expect(anonymous.status == .unauthorized)
            #expect(try anonymous.error().code == "UNAUTHORIZED")
            let wrong = try await client.send(.delete, "/api/v1/species/alba", key: "not-the-key")
            #expect(wrong.status == .unauthorized)
            #expect(try await client.send(.get, "/api/v1/species/alba", key: nil).status == .ok)
            let viaHeader = try await client.send(
                .post, "/api/v1/species", json: #"{"scientific_name": "viaheader"}"#, key: nil,
                headers: [.init("X-API-Key")!: TestEnvironment.ownerKey])
            #expect(viaHeader.status == .created)
            #expect(try await env.count("SELECT COUNT(*) FROM oak_entries WHERE scientific_name IN ('anon', 'alba')") == 1)
        }
    }

    @Test("unknown routes answer 404 with the envelope")
    func unknownRoute() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let response = try await client.send(.get, "/api/v1/nothing/here")
            #expect(response.status == .notFound)
            #expect(try response.error().code == "NOT_FOUND")
        }
    }

    @Test("malformed JSON answers 400, not 500, and changes nothing")
    func malformedJSON() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let before = try await env.count("SELECT COUNT(*) FROM oak_entries")
            for body in [#"{"scientific_name": "#, "not json", "[1, 2]", ""] {
                let response = try await client.send(.post, "/api/v1/species", json: body)
                #expect(response.status == .badRequest, "body \(body)")
                #expect(try response.error().code == "VALIDATION_ERROR")
            }
            let wrongType = try await client.send(.put, "/api/v1/species/alba", json: #"{"is_hybrid": "maybe"}"#)
            #expect(wrongType.status == .badRequest)
            #expect(try wrongType.invalidFields() == ["is_hybrid"])
            #expect(try await env.count("SELECT COUNT(*) FROM oak_entries") == before)
        }
    }

    @Test("a number that is not whole where an integer belongs names its field, and changes nothing")
    func fractionalIntegers() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let note = try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba", "sourceId": 2.5}"#)
            #expect(note.status == .badRequest)
            #expect(try note.invalidFields() == ["sourceId"])
            let push = try await client.send(
                .post, "/api/v1/sync/push",
                json: """
                    {"changes": [{"id": "\(UUID().uuidString)", "op": "upsert", "baseVersion": 1.5, "updatedAt": "2025-01-10T14:20:00Z",
                      "note": {"scientificName": "alba", "fields": {}}}]}
                    """)
            #expect(push.status == .badRequest)
            #expect(try push.invalidFields() == ["changes[0].baseVersion"])
            let broken = try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba", "sourceId": 2"#)
            #expect(try broken.invalidFields() == ["body"])
        }
        #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE scientific_name = 'alba' AND source_id = 3") == 0)
    }

    @Test("validation names every bad field: name length, conservation status, subgenus")
    func validationDetails() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let response = try await client.send(
                .post, "/api/v1/species", json: #"{"scientific_name": "x", "conservation_status": "XX", "subgenus": "Lepidobalanus"}"#)
            #expect(response.status == .badRequest)
            #expect(Set(try response.invalidFields()) == ["scientific_name", "conservation_status", "subgenus"])
            let long = String(repeating: "a", count: 101)
            let tooLong = try await client.send(.post, "/api/v1/species", json: #"{"scientific_name": "\#(long)"}"#)
            #expect(try tooLong.invalidFields() == ["scientific_name"])
            let missing = try await client.send(.post, "/api/v1/species", json: #"{"author": "L."}"#)
            #expect(try missing.invalidFields() == ["scientific_name"])
            let update = try await client.send(.put, "/api/v1/species/alba", json: #"{"conservation_status": "bad"}"#)
            #expect(update.status == .badRequest)
            #expect(try await client.send(.get, "/api/v1/species/alba").object()["conservation_status"] as? String == "LC")
        }
    }

    @Test("SQL injection payloads are stored and matched literally; the database is unchanged")
    func sqlInjection() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let before = try await env.count("SELECT COUNT(*) FROM oak_entries")
            let payload = "x'); DROP TABLE oak_entries; --"
            let created = try await client.send(
                .post, "/api/v1/species", json: #"{"scientific_name": "injected", "author": "\#(payload)"}"#)
            #expect(created.status == .created)
            #expect(try await client.send(.get, "/api/v1/species/injected").object()["author"] as? String == payload)
            let search = try await client.send(.get, "/api/v1/species/search?q=%27%20OR%201%3D1%20--")
            #expect(search.status == .ok)
            #expect(try search.data().isEmpty)
            let filtered = try await client.send(.get, "/api/v1/species?section=%27%20OR%20%271%27%3D%271")
            #expect(try filtered.data().isEmpty)
            let global = try await client.send(.get, "/api/v1/search?q=%25%27%20OR%201%3D1")
            #expect(global.status == .ok)
            #expect(try await env.count("SELECT COUNT(*) FROM oak_entries") == before + 1)
        }
    }

    @Test("DELETE answers 204 with an empty body everywhere")
    func deleteNoContent() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            try await client.send(.post, "/api/v1/species", json: #"{"scientific_name": "shortlived"}"#)
            let response = try await client.send(.delete, "/api/v1/species/shortlived")
            #expect(response.status == .noContent)
            #expect(response.body.readableBytes == 0)
        }
    }
}
