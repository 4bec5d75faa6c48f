import Foundation
import HummingbirdTesting
import Testing

@Suite("Search, stats, export and health")
struct CatalogRoutesTests {
    @Test("search across species, taxa and sources")
    func searchAcrossEverything() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let cerris = try await client.send(.get, "/api/v1/search?q=cerris").object()
            #expect(names(try #require(cerris["species"] as? [[String: Any]])).contains("cerris"))
            #expect(names(try #require(cerris["taxa"] as? [[String: Any]]), "name").contains("Cerris"))
            let inat = try await client.send(.get, "/api/v1/search?q=naturalist").object()
            #expect(names(try #require(inat["sources"] as? [[String: Any]]), "name") == ["iNaturalist"])
            let counts = try #require(inat["counts"] as? [String: Int])
            #expect(counts == ["species": 0, "taxa": 0, "sources": 1, "total": 1])
            let missing = try await client.send(.get, "/api/v1/search?q=")
            #expect(missing.status == .badRequest)
        }
    }

    @Test("stats count species, hybrids, taxa, sources and notes")
    func stats() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            try await client.send(.post, "/api/v1/species/alba/sources", json: #"{"source_id": 3}"#)
            let stats = try await client.send(.get, "/api/v1/stats").object()
            let species = try #require(stats["species"] as? Int)
            #expect(species == (try await env.count("SELECT COUNT(*) FROM oak_entries")))
            #expect(stats["hybrids"] as? Int == (try await env.count("SELECT COUNT(*) FROM oak_entries WHERE is_hybrid <> 0")))
            #expect(stats["sources"] as? Int == 3)
            #expect(stats["notes"] as? Int == 1)
            let bySubgenus = try #require(stats["species_by_subgenus"] as? [String: Int])
            #expect(bySubgenus.values.reduce(0, +) == species)
        }
    }

    @Test("export has the quercus_data.json shape with embedded sources")
    func exportShape() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            try await client.send(.post, "/api/v1/species/alba/sources", json: #"{"source_id": 2, "leaves": "lobed"}"#)
            let response = try await client.send(.get, "/api/v1/export")
            #expect(response.status == .ok)
            #expect(response.headers[.cacheControl] == "public, max-age=300")
            let species = try #require(try response.object()["species"] as? [[String: Any]])
            let alba = try #require(species.first { $0["name"] as? String == "alba" })
            let taxonomy = try #require(alba["taxonomy"] as? [String: Any])
            #expect(taxonomy["genus"] as? String == "Quercus")
            #expect(taxonomy["section"] as? String == "Quercus")
            // As the original's export types: subgenus and section always there, absent fields and empty lists left out.
            #expect(taxonomy.keys.sorted() == ["genus", "section", "subgenus"])
            for key in ["author", "is_hybrid", "conservation_status", "hybrids", "closely_related_to"] {
                #expect(alba.keys.contains(key), "export lacks \(key)")
            }
            for key in ["parent1", "parent2", "subspecies_varieties", "synonyms", "external_links"] {
                #expect(!alba.keys.contains(key), "export has an empty \(key)")
            }
            let sources = try #require(alba["sources"] as? [[String: Any]])
            #expect(sources.first?["source_name"] as? String == "Oaks of the World")
            #expect(sources.first?["leaves"] as? String == "lobed")
        }
    }

    @Test("If-None-Match compares weakly: a list naming the ETag, with or without W/ and blanks around it, or *, answers 304; others 200")
    func ifNoneMatchForms() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let etag = try #require(try await client.send(.get, "/api/v1/species?limit=5").headers[.eTag])
            for value in [etag, "W/\(etag)", #""other", W/\#(etag)"#, " \"other\" ,\t\(etag) ", "*"] {
                #expect(try await client.send(.get, "/api/v1/species?limit=5", headers: [.ifNoneMatch: value]).status == .notModified, "\(value)")
            }
            for value in [#""other""#, #""other", W/"again""#, "W/", "\(etag.dropLast(2))x\""] {
                #expect(try await client.send(.get, "/api/v1/species?limit=5", headers: [.ifNoneMatch: value]).status == .ok, "\(value)")
            }
        }
    }

    @Test("export ETag is strong and stable; If-None-Match answers 304 until the data changes")
    func exportETag() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let first = try await client.send(.get, "/api/v1/export")
            let etag = try #require(first.headers[.eTag])
            #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))

            let notModified = try await client.send(.get, "/api/v1/export", headers: [.ifNoneMatch: etag])
            #expect(notModified.status == .notModified)
            #expect(notModified.body.readableBytes == 0)

            // A write that changes nothing the export shows leaves the ETag alone once rebuilt.
            try await client.send(.post, "/api/v1/taxa", json: #"{"name": "Zeta", "level": "section", "parent": "Quercus"}"#)
            #expect(try await client.send(.get, "/api/v1/export").headers[.eTag] == etag)

            try await client.send(.put, "/api/v1/species/alba", json: #"{"conservation_status": "VU"}"#)
            let changed = try await client.send(.get, "/api/v1/export", headers: [.ifNoneMatch: etag])
            #expect(changed.status == .ok)
            #expect(changed.headers[.eTag] != etag)
        }
    }

    @Test("health and readiness answer at the root and under /api/v1")
    func health() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            for path in ["/health", "/api/v1/health"] {
                let response = try await client.send(.get, path)
                #expect(response.status == .ok)
                #expect(try response.object()["status"] as? String == "ok")
            }
            for path in ["/health/ready", "/api/v1/health/ready"] {
                let response = try await client.send(.get, path)
                #expect(response.status == .ok)
                #expect(try response.object()["database"] as? String == "connected")
            }
        }
    }

    @Test("readiness answers 503 when the database is unreachable")
    func readinessUnavailable() async throws {
        let env = try await TestEnvironment()
        try await env.test(.live) { client in
            try env.closeStore()
            let response = try await client.send(.get, "/health/ready")
            #expect(response.status == .serviceUnavailable)
            #expect(try response.object()["status"] as? String == "unavailable")
            #expect(try await client.send(.get, "/health").status == .ok)
        }
    }
}
