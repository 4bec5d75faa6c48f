import Foundation
import HTTPTypes
import Testing

@testable import OakServer

/// The rules the OpenAPI document states, each as a request a client can send: what schemathesis (every
/// check) found the server and the document disagreeing on.
@Suite("Contract rules (what the OpenAPI document states)")
struct ContractRulesTests {
    static let note = #"{"scientificName": "alba", "fields": {"leaf": "lobed"}}"#

    @Test("If-Match: an empty or malformed value is a 400 naming the header; a stale version a 412; surrounding blanks are ignored")
    func ifMatchForms() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = try #require(try await client.send(.post, "/api/v1/notes", json: Self.note).object()["id"] as? String)
            for value in ["", "abc", #""1"#, "W/", #""12345678901234567890""#] {
                let response = try await client.send(.patch, "/api/v1/notes/\(id)", json: #"{"fields": {"bark": "x"}}"#, headers: [.ifMatch: value])
                #expect(response.status == .badRequest, "If-Match: \(value)")
                #expect(try response.invalidFields() == ["If-Match"])
            }
            let stale = try await client.send(.delete, "/api/v1/notes/\(id)", headers: [.ifMatch: #""1""#])
            #expect(stale.status == .preconditionFailed)
            let any = try await client.send(.patch, "/api/v1/notes/\(id)", json: #"{"fields": {"bark": "y"}}"#, headers: [.ifMatch: "*\t"])
            #expect(any.status == .ok)
            #expect((try any.object()["fields"] as? [String: Any])?["bark"] as? String == "y")
        }
    }

    @Test(
        "search q: empty, blank (spaces, tab, newline, no-break or zero-width space) or with a NUL is a 400 naming q on both search routes; text around spaces is searched"
    )
    func searchQueryForms() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            for route in ["/api/v1/search", "/api/v1/species/search"] {
                for query in ["", "%20", "%20%09%0A", "%C2%A0", "%E2%80%8B", "al%00ba"] {
                    let response = try await client.send(.get, "\(route)?q=\(query)")
                    #expect(response.status == .badRequest, "\(route)?q=\(query)")
                    #expect(try response.invalidFields() == ["q"], "\(route)?q=\(query)")
                }
                #expect(try await client.send(.get, "\(route)?q=%20alba%20").status == .ok, "\(route)")
            }
        }
    }

    @Test("an invalid body is a 400 even when its If-Match is stale, and nothing changes")
    func invalidBodyBeforePrecondition() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = try #require(try await client.send(.post, "/api/v1/notes", json: Self.note).object()["id"] as? String)
            let long = String(repeating: "a", count: 20_001)
            let response = try await client.send(
                .put, "/api/v1/notes/\(id)", json: #"{"fields": {"bark": "\#(long)"}}"#, headers: [.ifMatch: #""1""#])
            #expect(response.status == .badRequest)
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE bark IS NOT NULL") == 0)
        }
    }

    @Test("a note's species or source cannot change: 409 naming the field")
    func noteKeysConflict() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = try #require(try await client.send(.post, "/api/v1/notes", json: Self.note).object()["id"] as? String)
            let species = try await client.send(.put, "/api/v1/notes/\(id)", json: #"{"scientificName": "robur"}"#)
            #expect(species.status == .conflict)
            #expect(try species.invalidFields() == ["scientificName"])
            let source = try await client.send(.patch, "/api/v1/notes/\(id)", json: #"{"sourceId": 1}"#)
            #expect(source.status == .conflict)
            #expect(try source.invalidFields() == ["sourceId"])
        }
    }

    @Test("a sync cursor that is not of the issued form is a 400; a well-formed one of another database a 410")
    func cursorForms() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            for cursor in [".62", "zz.1", "abc.-1", "abc.1.x", "abc.99999999999999999999"] {
                let response = try await client.send(.get, "/api/v1/sync/pull?since=\(cursor)")
                #expect(response.status == .badRequest, "since=\(cursor)")
                #expect(try response.invalidFields() == ["since"])
            }
            #expect(try await client.send(.get, "/api/v1/sync/pull?since=abc123.5").status == .gone)
        }
    }

    @Test("a parent for a subgenus is a 409, on create and on update; a parent that does not exist a 404")
    func subgenusParent() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let created = try await client.send(.post, "/api/v1/taxa", json: #"{"name": "Novum", "level": "subgenus", "parent": "Quercus"}"#)
            #expect(created.status == .conflict)
            #expect(try created.invalidFields() == ["parent"])
            let updated = try await client.send(.patch, "/api/v1/taxa/subgenus/Quercus", json: #"{"parent": "Cerris"}"#)
            #expect(updated.status == .conflict)
            #expect(try await client.send(.get, "/api/v1/taxa/subgenus/Quercus").object()["parent"] == nil)
            let orphan = try await client.send(.post, "/api/v1/taxa", json: #"{"name": "Albae", "level": "complex", "parent": "Quercus"}"#)
            #expect(orphan.status == .badRequest)
            #expect(try orphan.invalidFields() == ["parent"])
        }
    }

    @Test("a species name sent on update is ignored but must still be a name: blank is a 400 and nothing changes")
    func speciesNameOnUpdate() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let blank = try await client.send(.patch, "/api/v1/species/alba", json: #"{"scientific_name": "\n\r", "conservation_status": "NT"}"#)
            #expect(blank.status == .badRequest)
            #expect(try blank.invalidFields() == ["scientific_name"])
            #expect(try await client.send(.get, "/api/v1/species/alba").object()["conservation_status"] as? String != "NT")
            let same = try await client.send(.put, "/api/v1/species/alba", json: #"{"scientific_name": "Quercus alba", "author": "L."}"#)
            #expect(same.status == .ok)
            #expect(try same.object()["scientific_name"] as? String == "alba")
        }
    }
}
