import Foundation
import GRDB
import HummingbirdTesting
import OakModels
import Testing

@testable import OakServer

/// "Point your existing web app, CLI and phone at `oak serve` and nothing changes": each numbered point
/// of the drop-in promise, held with requests and with shapes written from the original's documentation.
@Suite("Compatibility with the original Oak clients")
struct CompatibilityTests {
    @Test("1 stats: species_count counts species that are not hybrids, with hybrid_count, taxa_count and source_count")
    func stats() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let stats = try await client.send(.get, "/api/v1/stats").object()
            let hybrids = try await env.count("SELECT COUNT(*) FROM oak_entries WHERE is_hybrid = 1")
            #expect(hybrids > 0)
            #expect(stats["species_count"] as? Int == (try await env.count("SELECT COUNT(*) FROM oak_entries")) - hybrids)
            #expect(stats["hybrid_count"] as? Int == hybrids)
            #expect(stats["taxa_count"] as? Int == (try await env.count("SELECT COUNT(*) FROM taxa")))
            #expect(stats["source_count"] as? Int == 3)
        }
    }

    @Test("2 search: a case-insensitive substring of names, local names and synonyms, of taxa and of sources; exact, then prefix, then infix; counts")
    func search() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            try await client.send(.post, "/api/v1/species/rubra/sources", json: #"{"source_id": 2, "local_names": ["Northern Red Oak"]}"#)
            try await client.send(.put, "/api/v1/species/velutina", json: #"{"synonyms": ["Quercus tinctoria Bartram"]}"#)

            let infix = try await client.send(.get, "/api/v1/search?q=lba").object()
            #expect(names(try #require(infix["species"] as? [[String: Any]])).contains("alba"))

            let upper = try await client.send(.get, "/api/v1/search?q=THERN%20RED").object()
            #expect(names(try #require(upper["species"] as? [[String: Any]])) == ["rubra"])
            let synonym = try await client.send(.get, "/api/v1/search?q=inctori").object()
            #expect(names(try #require(synonym["species"] as? [[String: Any]])) == ["velutina"])

            // "alba" is exact, names starting with it come next, names only containing it last.
            try await client.send(.post, "/api/v1/species", json: #"{"scientific_name": "albatrossa"}"#)
            try await client.send(.post, "/api/v1/species", json: #"{"scientific_name": "subalba"}"#)
            let ranked = names(try #require(try await client.send(.get, "/api/v1/search?q=alba").object()["species"] as? [[String: Any]]))
            #expect(ranked.first == "alba")
            let prefixed = try #require(ranked.firstIndex(of: "albatrossa"))
            let containing = try #require(ranked.firstIndex(of: "subalba"))
            #expect(prefixed < containing)

            let everything = try await client.send(.get, "/api/v1/search?q=ERRIS").object()
            #expect(names(try #require(everything["taxa"] as? [[String: Any]]), "name").contains("Cerris"))
            let sources = try await client.send(.get, "/api/v1/search?q=naturali").object()
            #expect(names(try #require(sources["sources"] as? [[String: Any]]), "name") == ["iNaturalist"])
            let counts = try #require(everything["counts"] as? [String: Int])
            #expect(counts["species"] == (everything["species"] as? [Any])?.count)
            #expect(counts["taxa"] == (everything["taxa"] as? [Any])?.count)
            #expect(counts["total"] == counts["species"]! + counts["taxa"]! + counts["sources"]!)

            // Two letters have no trigram: they are compared with every row, and still found anywhere.
            #expect(names(try #require(try await client.send(.get, "/api/v1/species/search?q=lb").object()["data"] as? [[String: Any]])).contains("alba"))
        }
    }

    @Test("3 export: the quercus_data.json format, loaded with the original iOS app's decoding rules (top-level sources required)")
    func exportLoadsInTheOriginalApp() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            try await client.send(.post, "/api/v1/species/alba/sources", json: #"{"source_id": 1, "leaves": "lobed", "local_names": ["white oak"]}"#)
            let body = try await client.send(.get, "/api/v1/export").body
            let container = try JSONDecoder().decode(OriginalAppContainer.self, from: Data(buffer: body))
            #expect(container.sources.map(\.id) == [1, 2, 3])
            #expect(container.sources[0].sourceType == .website)
            #expect(container.sources[2].sourceType == .personalObservation)
            #expect(container.species.count == (try await env.count("SELECT COUNT(*) FROM oak_entries")))
            #expect(container.metadata?.speciesCount == container.species.count)
            let alba = try #require(container.species.first { $0.name == "alba" })
            #expect(alba.taxonomy.genus == "Quercus")
            #expect(alba.taxonomy.subgenus == "Quercus")
            #expect(container.species.contains { $0.isHybrid && $0.name.hasPrefix("× ") })
        }
    }

    @Test("3 export: metadata, licensed sources, per-source data; absent fields and empty lists left out as the original's export types; ETag and 304 hold")
    func exportShape() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            try await client.send(
                .put, "/api/v1/sources/1", json: #"{"license": "CC BY-NC 4.0", "license_url": "https://creativecommons.org/licenses/by-nc/4.0/"}"#)
            try await client.send(.post, "/api/v1/species/alba/sources", json: #"{"source_id": 1, "leaves": "lobed", "url": "https://example.org/alba"}"#)
            try await client.send(
                .put, "/api/v1/species/alba",
                json: #"{"external_links": [{"name": "Wikipedia", "url": "https://en.wikipedia.org/wiki/Quercus_alba", "logo": "wikipedia"}]}"#)
            let response = try await client.send(.get, "/api/v1/export")
            let document = try response.object()
            let metadata = try #require(document["metadata"] as? [String: Any])
            #expect(Set(metadata.keys) == ["version", "exported_at", "species_count"])
            let sources = try #require(document["sources"] as? [[String: Any]])
            #expect(sources[0]["license"] as? String == "CC BY-NC 4.0")
            #expect(sources[1]["license"] == nil, "a source without a license has no license key")

            let species = try #require(document["species"] as? [[String: Any]])
            let alba = try #require(species.first { $0["name"] as? String == "alba" })
            #expect((alba["external_links"] as? [[String: String]])?.first?["logo"] == "wikipedia")
            let data = try #require((alba["sources"] as? [[String: Any]])?.first)
            #expect(data["source_id"] as? Int == 1)
            #expect(data["source_name"] as? String == "iNaturalist")
            #expect(data["license"] as? String == "CC BY-NC 4.0")
            #expect(data["license_url"] as? String == "https://creativecommons.org/licenses/by-nc/4.0/")
            #expect(data["is_preferred"] as? Bool == false)
            #expect(data["url"] as? String == "https://example.org/alba")
            #expect(Set(data.keys) == ["source_id", "source_name", "source_url", "license", "license_url", "is_preferred", "leaves", "url"])

            let withoutSources = try #require(species.first { ($0["name"] as? String) == "macrocarpa" })
            #expect(withoutSources["sources"] == nil && withoutSources["synonyms"] == nil && withoutSources["parent1"] == nil)
            let taxonomy = try #require(withoutSources["taxonomy"] as? [String: Any])
            #expect(Set(taxonomy.keys) == ["genus", "subgenus", "section"])

            let etag = try #require(response.headers[.eTag])
            #expect(try await client.send(.get, "/api/v1/export", headers: [.ifNoneMatch: etag]).status == .notModified)
            #expect(try await client.send(.get, "/api/v1/export").body == response.body, "the same data exports the same bytes")
        }
    }

    @Test("4 taxa and sources carry species_count in lists and details; /taxa without limit lists every taxon")
    func speciesCounts() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            for index in 0..<60 {
                try await client.send(.post, "/api/v1/taxa", json: #"{"name": "Extra\#(index)", "level": "subsection", "parent": "Quercus"}"#)
            }
            let all = try await client.send(.get, "/api/v1/taxa").object()
            let taxa = try #require(all["data"] as? [[String: Any]])
            #expect(taxa.count == (try await env.count("SELECT COUNT(*) FROM taxa")))
            #expect(taxa.count > Pagination.defaultLimit)
            #expect((all["pagination"] as? [String: Any])?["hasMore"] as? Bool == false)
            #expect(try await client.send(.get, "/api/v1/taxa?limit=5").data().count == 5)

            let section = try #require(taxa.first { $0["level"] as? String == "section" && $0["name"] as? String == "Lobatae" })
            let lobatae = try await env.count("SELECT COUNT(*) FROM oak_entries WHERE section = 'Lobatae'")
            #expect(section["species_count"] as? Int == lobatae)
            #expect(try await client.send(.get, "/api/v1/taxa/section/Lobatae").object()["species_count"] as? Int == lobatae)
            #expect(taxa.first { $0["name"] as? String == "Extra0" }?["species_count"] as? Int == 0)

            try await client.send(.post, "/api/v1/species/alba/sources", json: #"{"source_id": 2}"#)
            try await client.send(.post, "/api/v1/species/rubra/sources", json: #"{"source_id": 2}"#)
            let sources = try await client.send(.get, "/api/v1/sources").array()
            #expect(sources.first { $0["id"] as? Int == 2 }?["species_count"] as? Int == 2)
            #expect(sources.first { $0["id"] as? Int == 1 }?["species_count"] as? Int == 0)
            #expect(try await client.send(.get, "/api/v1/sources/2").object()["species_count"] as? Int == 2)
        }
    }

    @Test("5 health carries version {api, min_client} at the root and under /api/v1")
    func healthVersion() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            for path in ["/health", "/api/v1/health"] {
                let version = try #require(try await client.send(.get, path).object()["version"] as? [String: String])
                #expect(version == ["api": VersionInfo.current.api, "min_client": VersionInfo.current.minClient])
            }
        }
    }

    @Test("6 legacy list columns: JSON arrays, the text null, empty text and comma text read as lists, never [\"null\"]")
    func legacyListColumns() async throws {
        // Legacy files are SQLite files.
        let env = try await TestEnvironment(backend: .sqlite)
        let queue = try DatabaseQueue(path: env.database)
        try await queue.write { db in
            try db.execute(
                sql: """
                    UPDATE oak_entries SET synonyms = 'null', hybrids = '', closely_related_to = 'rubra, velutina ,',
                        subspecies_varieties = '  null ' WHERE scientific_name = 'alba'
                    """)
            try db.execute(
                sql:
                    "INSERT INTO species_sources (uuid, scientific_name, source_id, local_names, is_preferred) VALUES ('6f1c0c8e-0000-4000-8000-000000000001', 'alba', 2, 'null', 0)"
            )
            try db.execute(
                sql:
                    "INSERT INTO species_sources (uuid, scientific_name, source_id, local_names, is_preferred) VALUES ('6f1c0c8e-0000-4000-8000-000000000002', 'alba', 1, 'white oak, stave oak', 0)"
            )
        }
        try await env.test { client in
            let alba = try await client.send(.get, "/api/v1/species/alba").object()
            // Empty lists are left out of the answer.
            #expect(alba["synonyms"] == nil && alba["hybrids"] == nil && alba["subspecies_varieties"] == nil)
            #expect(alba["closely_related_to"] as? [String] == ["rubra", "velutina"])
            let rows = try await client.send(.get, "/api/v1/species/alba/sources").array()
            #expect(rows.first { $0["source_id"] as? Int == 2 }?.keys.contains("local_names") == false)
            #expect(rows.first { $0["source_id"] as? Int == 1 }?["local_names"] as? [String] == ["white oak", "stave oak"])
            let exported = try #require(try await client.send(.get, "/api/v1/export").object()["species"] as? [[String: Any]])
            let entry = try #require(exported.first { $0["name"] as? String == "alba" })
            #expect(entry["synonyms"] == nil)
            #expect(entry["closely_related_to"] as? [String] == ["rubra", "velutina"])
            #expect(!String(buffer: try await client.send(.get, "/api/v1/export").body).contains(#"["null"]"#))
        }
        // Reading rewrote nothing: the columns hold what the other tool wrote.
        let stored = try await queue.read { db in
            try Row.fetchOne(db, sql: "SELECT synonyms, hybrids, closely_related_to FROM oak_entries WHERE scientific_name = 'alba'")
        }
        #expect(stored?["synonyms"] == "null")
        #expect(stored?["hybrids"] == "")
        #expect(stored?["closely_related_to"] == "rubra, velutina ,")
    }

    @Test("7 hybrid names: ×, x, X and URL-encoded forms resolve to one species; new hybrids are stored with ×; a search for × lists hybrids")
    func hybridNames() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            for path in ["%C3%97%20bebbiana", "x%20bebbiana", "X%20bebbiana", "%C3%97bebbiana", "bebbiana", "Quercus%20x%20bebbiana"] {
                let response = try await client.send(.get, "/api/v1/species/\(path)")
                #expect(response.status == .ok, "\(path)")
                #expect(try response.object()["scientific_name"] as? String == "× bebbiana", "\(path)")
            }
            let created = try await client.send(
                .post, "/api/v1/species", json: #"{"scientific_name": "x novahybrida", "is_hybrid": true, "parent1": "alba", "parent2": "rubra"}"#)
            #expect(created.status == .created)
            #expect(try created.object()["scientific_name"] as? String == "× novahybrida")
            #expect(try await env.count("SELECT COUNT(*) FROM oak_entries WHERE scientific_name = '× novahybrida'") == 1)
            let plain = try await client.send(.post, "/api/v1/species", json: #"{"scientific_name": "secundahybrida", "is_hybrid": true}"#)
            #expect(try plain.object()["scientific_name"] as? String == "× secundahybrida")

            for query in ["%C3%97", "%C3%97%20"] {
                let response = try await client.send(.get, "/api/v1/search?q=\(query)")
                #expect(response.status == .ok)
                let found = try #require(try response.object()["species"] as? [[String: Any]])
                #expect(!found.isEmpty && found.allSatisfy { $0["is_hybrid"] as? Bool == true }, "\(query)")
            }
            let typed = try await client.send(.get, "/api/v1/species/search?q=x%20bebb").object()
            #expect(names(try #require(typed["data"] as? [[String: Any]])) == ["× bebbiana"])
        }
    }

    @Test("8 rate-limit headers: X-RateLimit-Reset is the Unix time at which the bucket is full again; a 429 has Retry-After in seconds")
    func rateLimitHeaders() async throws {
        let env = try await TestEnvironment()
        let configuration = env.configuration(readsPerSecond: 2)
        // The buckets' clock stands still, so the test does not depend on how fast it runs.
        let limiter = RateLimiter(clock: { 1000 })
        try await env.test(configuration: configuration, rateLimiter: limiter) { client in
            let before = Int(Date().timeIntervalSince1970)
            let first = try await client.send(.get, "/api/v1/stats")
            let after = Int(Date().timeIntervalSince1970)
            let header = try #require(first.headers[.init("X-RateLimit-Reset")!])
            let reset = try #require(Int(header))
            // Bounded by the wall clock around the request, however long a loaded machine takes to answer it.
            #expect(reset >= before && reset <= after + 3, "a Unix time, not a count of seconds: \(reset)")
            #expect(first.headers[.init("X-RateLimit-Limit")!] == "2")
            _ = try await client.send(.get, "/api/v1/stats")
            let refused = try await client.send(.get, "/api/v1/stats")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.retryAfter] == "1")
        }
    }

    @Test("9 auth verify answers status authenticated, with the key's name and abilities")
    func authVerify() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let verified = try await client.send(.get, "/api/v1/auth/verify").object()
            #expect(verified["status"] as? String == "authenticated")
            #expect(verified["name"] as? String == "owner")
            #expect((verified["abilities"] as? [String])?.contains("admin") == true)
            #expect(try await client.send(.get, "/api/v1/auth/verify", key: "wrong-key").status == .unauthorized)
        }
    }

    @Test("10 NUL characters: a NUL in a name, id, body field or path segment answers 400 naming it and stores nothing")
    func nulCharacters() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let before = try await env.count("SELECT COUNT(*) FROM oak_entries")
            let created = try await client.send(.post, "/api/v1/species", json: #"{"scientific_name": "trunc\u0000ated"}"#)
            #expect(created.status == .badRequest)
            #expect(try created.invalidFields() == ["scientific_name"])
            #expect(try await env.count("SELECT COUNT(*) FROM oak_entries") == before)

            let mangled = try await client.send(.delete, "/api/v1/species/alba%00zzz")
            #expect(mangled.status == .badRequest)
            #expect(try mangled.invalidFields() == ["name"])
            #expect(try await client.send(.get, "/api/v1/species/alba").status == .ok)

            let note = try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba", "fields": {"leaf": "a\u0000b"}}"#)
            #expect(note.status == .badRequest)
            #expect(try note.invalidFields() == ["fields.leaf"])
            let push = try await client.send(
                .post, "/api/v1/sync/push",
                json:
                    #"{"changes": [{"id": "6f1c0c8e-0000-4000-8000-00000000000a", "op": "upsert", "updatedAt": "2026-01-01T00:00:00Z", "note": {"scientificName": "al\u0000ba", "fields": {}}}]}"#
            )
            #expect(push.status == .badRequest)
            #expect(try push.invalidFields() == ["changes[0].note.scientificName"])
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources") == 0)
            #expect(try await client.send(.get, "/api/v1/taxa/section/Quer%00cus").status == .badRequest)
        }
    }

    @Test("10 control characters other than NUL are stored and returned byte for byte")
    func otherControlCharacters() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let text = "tab\there\u{1}bell\u{7}\u{1C}end"
            let body = try JSONSerialization.data(withJSONObject: ["source_id": 2, "leaves": text])
            let created = try await client.send(.post, "/api/v1/species/alba/sources", json: String(decoding: body, as: UTF8.self))
            #expect(created.status == .created)
            #expect(try created.object()["leaves"] as? String == text)
            let echoed = try await client.send(.get, "/api/v1/species/alba/sources/2")
            #expect(try echoed.object()["leaves"] as? String == text)
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE scientific_name = 'alba' AND leaves = ?", [text]) == 1)
        }
    }

    @Test("every response the original clients read has the keys they read (fixture written from their documented shapes)")
    func clientReads() async throws {
        let url = try #require(Bundle.module.url(forResource: "original-client-reads", withExtension: "json", subdirectory: "Fixtures"))
        let fixture = try JSONDecoder().decode(ClientReads.self, from: Data(contentsOf: url))
        let env = try await TestEnvironment()
        try await env.test { client in
            try await client.send(.post, "/api/v1/species/alba/sources", json: #"{"source_id": 1, "leaves": "lobed"}"#)
            for entry in fixture.requests {
                let parts = entry.request.split(separator: " ", maxSplits: 1)
                let response = try await client.send(
                    .init(rawValue: String(parts[0]))!, String(parts[1]), key: entry.authenticated == true ? TestEnvironment.ownerKey : nil)
                #expect(response.status == .ok, "\(entry.request)")
                let json = try JSONSerialization.jsonObject(with: Data(buffer: response.body))
                for path in entry.reads {
                    #expect(Self.has(json, path: path), "\(entry.request) lacks \(path)")
                }
            }
        }
    }

    @Test("front door: GET / answers a small index; /docs lists the routes of the OpenAPI document")
    func frontDoor() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let index = try await client.send(.get, "/")
            #expect(index.status == .ok)
            let body = try index.object()
            #expect(body["name"] as? String == "Oak Compendium")
            #expect((body["links"] as? [String: String])?["openapi"] == "/api/v1/openapi.json")
            #expect((body["version"] as? [String: String])?["api"] == VersionInfo.current.api)
            let docs = try await client.send(.get, "/docs")
            #expect(docs.status == .ok)
            #expect(docs.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(String(buffer: docs.body).contains("/api/v1/species/{name}"))
        }
    }

    @Test("front door: a cursor ahead of the change log answers 410 saying so")
    func cursorAhead() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let cursor = try #require(try await client.send(.get, "/api/v1/sync/pull?limit=5000").object()["cursor"] as? String)
            let parts = cursor.split(separator: ".")
            let ahead = "\(parts[0]).\(Int(parts[1])! + 1000)"
            let response = try await client.send(.get, "/api/v1/sync/pull?since=\(ahead)")
            #expect(response.status == .gone)
            #expect(try response.error().message.contains("ahead of"))
        }
    }

    @Test("front door: /metrics counts the write-ahead log in the database size")
    func metricsCountTheWAL() async throws {
        let env = try await TestEnvironment(backend: .sqlite)
        try await env.test { client in
            try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba", "fields": {"leaf": "lobed"}}"#)
            let text = String(buffer: try await client.send(.get, "/metrics").body)
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("oak_db_file_bytes ") })
            let reported = try #require(Double(line.split(separator: " ")[1]))
            let attributes = try FileManager.default.attributesOfItem(atPath: env.database)
            let main = try #require(attributes[.size] as? NSNumber).doubleValue
            let wal = (try? FileManager.default.attributesOfItem(atPath: env.database + "-wal")[.size] as? NSNumber)?.doubleValue ?? 0
            #expect(wal > 0)
            #expect(reported == main + wal)
        }
    }

    /// Whether `json` has a value at `path` (`a.b`, `a[].b` for every item of `a`, `[].b` for a bare array).
    static func has(_ json: Any, path: String) -> Bool {
        var parts = path.split(separator: ".", maxSplits: 1).map(String.init)
        let head = parts.removeFirst()
        let rest = parts.first
        if head.hasSuffix("[]") {
            let name = String(head.dropLast(2))
            let container = name.isEmpty ? json : (json as? [String: Any])?[name] as Any
            guard let items = container as? [Any], !items.isEmpty else { return false }
            return items.allSatisfy { item in rest.map { has(item, path: $0) } ?? true }
        }
        guard let object = json as? [String: Any], let value = object[head] else { return false }
        return rest.map { has(value, path: $0) } ?? true
    }
}

/// The fixture of what each original client reads.
private struct ClientReads: Decodable {
    struct Entry: Decodable {
        var request: String
        var authenticated: Bool?
        var reads: [String]
    }

    var requests: [Entry]
}

// The original iOS app's loading of `quercus_data.json`, written from its documented shapes: a container
// whose `sources` are required, each with a `source_type` from a fixed set, and species references.

private struct OriginalAppContainer: Decodable {
    struct Metadata: Decodable {
        let version: String?
        let exportedAt: String?
        let speciesCount: Int?
        enum CodingKeys: String, CodingKey {
            case version
            case exportedAt = "exported_at"
            case speciesCount = "species_count"
        }
    }

    let metadata: Metadata?
    let sources: [OriginalAppSource]
    let species: [OriginalAppSpecies]
}

private enum OriginalAppSourceType: String, Decodable {
    case website = "Website"
    case book = "Book"
    case personalObservation = "Personal Observation"
    case journalArticle = "Journal Article"
    case other = "Other"
}

private struct OriginalAppSource: Decodable {
    let id: Int
    let sourceType: OriginalAppSourceType
    let name: String
    let description: String?
    let author: String?
    let year: Int?
    let url: String?
    let isbn: String?
    let doi: String?
    let license: String?
    let licenseUrl: String?

    enum CodingKeys: String, CodingKey {
        case id
        case sourceType = "source_type"
        case name, description, author, year, url, isbn, doi, license
        case licenseUrl = "license_url"
    }
}

private struct OriginalAppSpecies: Decodable {
    struct Taxonomy: Decodable {
        let genus: String?
        let subgenus: String?
        let section: String?
        let subsection: String?
        let complex: String?
    }

    let name: String
    let author: String?
    let isHybrid: Bool
    let conservationStatus: String?
    let taxonomy: Taxonomy

    enum CodingKeys: String, CodingKey {
        case name, author
        case isHybrid = "is_hybrid"
        case conservationStatus = "conservation_status"
        case taxonomy
    }
}
