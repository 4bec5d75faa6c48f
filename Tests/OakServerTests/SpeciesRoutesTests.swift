import Foundation
import HummingbirdTesting
import OakModels
import Testing

@Suite("Species API")
struct SpeciesRoutesTests {
    @Test("list species with pagination: limit, offset, total, hasMore")
    func listWithPagination() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let first = try await client.send(.get, "/api/v1/species?limit=10&offset=0")
            #expect(first.status == .ok)
            let page = try first.object()
            let pagination = try #require(page["pagination"] as? [String: Any])
            let total = try #require(pagination["total"] as? Int)
            #expect(total >= 40)
            #expect(pagination["limit"] as? Int == 10)
            #expect(pagination["offset"] as? Int == 0)
            #expect(pagination["hasMore"] as? Bool == true)
            #expect(try first.data().count == 10)

            let last = try await client.send(.get, "/api/v1/species?limit=10&offset=\(total - 3)")
            #expect(try last.data().count == 3)
            #expect((try last.object()["pagination"] as? [String: Any])?["hasMore"] as? Bool == false)

            let second = try await client.send(.get, "/api/v1/species?limit=10&offset=10")
            #expect(Set(names(try first.data())).isDisjoint(with: names(try second.data())))
        }
    }

    @Test("limit above the maximum is clamped to 1000, not rejected; limit 0 is a 400; any offset is safe")
    func limitClamped() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let response = try await client.send(.get, "/api/v1/species?limit=5000")
            #expect(response.status == .ok)
            #expect((try response.object()["pagination"] as? [String: Any])?["limit"] as? Int == 1000)
            let bad = try await client.send(.get, "/api/v1/species?limit=0")
            #expect(bad.status == .badRequest)
            #expect(try bad.invalidFields() == ["limit"])
            let farOffset = try await client.send(.get, "/api/v1/species?offset=9223372036854775807")
            #expect(farOffset.status == .ok)
            #expect(try farOffset.data().isEmpty)
            #expect((try farOffset.object()["pagination"] as? [String: Any])?["hasMore"] as? Bool == false)
            let notNumber = try await client.send(.get, "/api/v1/species?offset=abc")
            #expect(notNumber.status == .badRequest)
            #expect(try notNumber.invalidFields() == ["offset"])
            // A number given twice has no one value: refused, not read as its first.
            let twice = try await client.send(.get, "/api/v1/species?limit=&limit=5")
            #expect(twice.status == .badRequest)
            #expect(try twice.invalidFields() == ["limit"])
            #expect(try await client.send(.get, "/api/v1/species?is_hybrid=true&is_hybrid=false").status == .badRequest)
        }
    }

    @Test("filter species by subgenus, section, hybrid and source_id")
    func filters() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let cerris = try await client.send(.get, "/api/v1/species?subgenus=Cerris&limit=1000").data()
            #expect(!cerris.isEmpty)
            #expect(cerris.allSatisfy { $0["subgenus"] as? String == "Cerris" })

            let lobatae = try await client.send(.get, "/api/v1/species?section=Lobatae&limit=1000").data()
            #expect(names(lobatae).contains("rubra"))
            #expect(lobatae.allSatisfy { $0["section"] as? String == "Lobatae" })

            let hybrids = try await client.send(.get, "/api/v1/species?hybrid=true&limit=1000").data()
            #expect(!hybrids.isEmpty)
            #expect(hybrids.allSatisfy { $0["is_hybrid"] as? Bool == true && $0["parent1"] is String })
            let nonHybrids = try await client.send(.get, "/api/v1/species?hybrid=false&limit=1000").data()
            #expect(nonHybrids.allSatisfy { $0["is_hybrid"] as? Bool == false })

            try await client.send(.post, "/api/v1/species/alba/sources", json: #"{"source_id": 2, "leaves": "lobed"}"#)
            let fromSource2 = try await client.send(.get, "/api/v1/species?source_id=2").data()
            #expect(names(fromSource2) == ["alba"])

            let badSubgenus = try await client.send(.get, "/api/v1/species?subgenus=Nope")
            #expect(badSubgenus.status == .badRequest)
            #expect(try badSubgenus.invalidFields() == ["subgenus"])
        }
    }

    @Test("filter species by subsection and complex")
    func subsectionAndComplexFilters() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            try await client.send(.put, "/api/v1/species/rubra", json: #"{"subsection": "Rubrae", "complex": "rubra complex"}"#)
            #expect(names(try await client.send(.get, "/api/v1/species?subsection=Rubrae").data()) == ["rubra"])
            #expect(names(try await client.send(.get, "/api/v1/species?complex=rubra%20complex").data()) == ["rubra"])
        }
    }

    @Test("get a species; an unknown one is 404 with the envelope")
    func getAndNotFound() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let alba = try await client.send(.get, "/api/v1/species/alba")
            #expect(alba.status == .ok)
            let body = try alba.object()
            #expect(body["scientific_name"] as? String == "alba")
            #expect(body["author"] as? String == "L.")
            // Absent values and empty lists are left out, as the original server does.
            #expect(!body.keys.contains("subsection"))
            #expect(!body.keys.contains("external_links"))

            let missing = try await client.send(.get, "/api/v1/species/notaspecies")
            #expect(missing.status == .notFound)
            #expect(try missing.error().code == "NOT_FOUND")
        }
    }

    @Test("create a species answers 201; a duplicate answers 409")
    func createAndDuplicate() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let created = try await client.send(
                .post, "/api/v1/species",
                json:
                    #"{"scientific_name": "Quercus novaspecies", "author": "Tester", "is_hybrid": false, "subgenus": "Quercus", "section": "Quercus", "external_links": [{"name": "Wiki", "url": "https://example.org/n"}]}"#
            )
            #expect(created.status == .created)
            #expect(try created.object()["scientific_name"] as? String == "novaspecies")
            let fetched = try await client.send(.get, "/api/v1/species/novaspecies").object()
            #expect((fetched["external_links"] as? [[String: Any]])?.first?["url"] as? String == "https://example.org/n")

            let duplicate = try await client.send(.post, "/api/v1/species", json: #"{"scientific_name": "novaspecies"}"#)
            #expect(duplicate.status == .conflict)
            #expect(try duplicate.error().code == "CONFLICT")
        }
    }

    @Test("update a species answers 200 and merges: absent keys unchanged, null clears")
    func updateMerges() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let updated = try await client.send(.put, "/api/v1/species/alba", json: #"{"conservation_status": "NT", "author": null}"#)
            #expect(updated.status == .ok)
            let body = try updated.object()
            #expect(body["conservation_status"] as? String == "NT")
            #expect(body["author"] == nil)
            #expect(body["section"] as? String == "Quercus")
            #expect((body["hybrids"] as? [String])?.contains("× bebbiana") == true)

            let patched = try await client.send(.patch, "/api/v1/species/alba", json: #"{"synonyms": ["Quercus alba var. repanda Michx."]}"#)
            #expect(patched.status == .ok)
            let stored = try await client.send(.get, "/api/v1/species/alba").object()
            #expect(stored["conservation_status"] as? String == "NT")
            #expect(stored["synonyms"] as? [String] == ["Quercus alba var. repanda Michx."])
        }
    }

    @Test("update or delete of a missing species answers 404")
    func updateDeleteMissing() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let update = try await client.send(.put, "/api/v1/species/ghost", json: #"{"author": "x"}"#)
            #expect(update.status == .notFound)
            let delete = try await client.send(.delete, "/api/v1/species/ghost")
            #expect(delete.status == .notFound)
        }
    }

    @Test("delete answers 204 and cascades to the species' source data")
    func deleteCascades() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            try await client.send(.post, "/api/v1/species/lyrata/sources", json: #"{"source_id": 3, "leaves": "lyre-shaped"}"#)
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE scientific_name = 'lyrata'") == 1)
            let deleted = try await client.send(.delete, "/api/v1/species/lyrata")
            #expect(deleted.status == .noContent)
            #expect(try await client.send(.get, "/api/v1/species/lyrata").status == .notFound)
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE scientific_name = 'lyrata'") == 0)
        }
    }

    @Test("delete of a hybrid parent answers 409 listing details.blocking_hybrids")
    func deleteBlockedByHybrids() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let response = try await client.send(.delete, "/api/v1/species/macrocarpa")
            #expect(response.status == .conflict)
            let blocking = try #require(try response.error().details["blocking_hybrids"] as? [String])
            #expect(blocking.contains("× bebbiana"))
            #expect(try await client.send(.get, "/api/v1/species/macrocarpa").status == .ok)
        }
    }

    @Test("search species by scientific name, common name and synonym, ranked")
    func search() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            try await client.send(
                .post, "/api/v1/species/alba/sources", json: #"{"source_id": 1, "local_names": ["White Oak", "Eastern white oak"]}"#)
            try await client.send(
                .post, "/api/v1/species/bicolor/sources", json: #"{"source_id": 1, "local_names": ["Swamp white oak"]}"#)

            let byName = try await client.send(.get, "/api/v1/species/search?q=alba")
            #expect(byName.status == .ok)
            #expect(names(try byName.data()).first == "alba")

            let byCommonName = try await client.send(.get, "/api/v1/species/search?q=white%20oak").object()
            let found = names(try #require(byCommonName["data"] as? [[String: Any]]))
            #expect(Set(found) == ["alba", "bicolor"])
            #expect(byCommonName["query"] as? String == "white oak")
            #expect(byCommonName["count"] as? Int == 2)

            let bySynonym = try await client.send(.get, "/api/v1/species/search?q=PEDUNCULATA")
            #expect(names(try bySynonym.data()) == ["robur"])

            let missing = try await client.send(.get, "/api/v1/species/search")
            #expect(missing.status == .badRequest)
            #expect(try missing.invalidFields() == ["q"])
        }
    }

    @Test("full species embeds sources with source_name and source_url, preferred first, then source_id")
    func fullWithSources() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            try await client.send(.post, "/api/v1/species/alba/sources", json: #"{"source_id": 2, "leaves": "from OotW"}"#)
            try await client.send(.post, "/api/v1/species/alba/sources", json: #"{"source_id": 1, "leaves": "from iNat"}"#)
            try await client.send(.post, "/api/v1/species/alba/sources", json: #"{"source_id": 3, "leaves": "mine"}"#)
            let full = try await client.send(.get, "/api/v1/species/alba/full")
            #expect(full.status == .ok)
            let body = try full.object()
            #expect(body["scientific_name"] as? String == "alba")
            let sources = try #require(body["sources"] as? [[String: Any]])
            #expect(sources.compactMap { $0["source_id"] as? Int } == [3, 1, 2])
            #expect(sources[0]["source_name"] as? String == "Oak Compendium")
            #expect(sources[1]["source_name"] as? String == "iNaturalist")
            #expect(sources[1]["source_url"] as? String == "https://www.inaturalist.org")
            #expect(try await client.send(.get, "/api/v1/species/nothing/full").status == .notFound)
        }
    }

    @Test("species routes work through a real socket")
    func liveSocket() async throws {
        let env = try await TestEnvironment()
        try await env.test(.live) { client in
            #expect(try await client.send(.get, "/api/v1/species/robur").object()["author"] as? String == "L.")
            let created = try await client.send(.post, "/api/v1/species", json: #"{"scientific_name": "livetest"}"#)
            #expect(created.status == .created)
            #expect(try await client.send(.delete, "/api/v1/species/livetest").status == .noContent)
        }
    }
}
