import Foundation
import OakModels
import Testing

/// Real compendium databases hold hybrids spelled every way (`berberidifolia × douglasii` beside
/// `berberidifolia x cornelius-mulleri`). Every record is reachable by its exact stored name first, then by the
/// other spellings of the hybrid sign, on every route that names a species.
@Suite("Stored names: each species reachable by the name it is stored under")
struct StoredSpellingTests {
    static let asciiHybrid = "berberidifolia x cornelius-mulleri"
    static let signHybrid = "berberidifolia × douglasii"

    /// A database with both spellings, and one epithet stored in both (the exact name must decide).
    private func environment() async throws -> TestEnvironment {
        let env = try await TestEnvironment()
        for name in [Self.asciiHybrid, Self.signHybrid, "x keepii", "× keepii"] {
            try await env.execute("INSERT INTO oak_entries (scientific_name, author) VALUES (?, ?)", [name, "stored as '\(name)'"])
        }
        return env
    }

    private func path(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/")))!
    }

    @Test("a species stored with an ASCII x is found by its own name on /species, /full and /sources; the × spelling finds it too")
    func asciiSpellingReachable() async throws {
        let env = try await environment()
        try await env.test { client in
            for asked in [Self.asciiHybrid, "berberidifolia × cornelius-mulleri", "Quercus berberidifolia X cornelius-mulleri"] {
                let species = try await client.send(.get, "/api/v1/species/\(path(asked))")
                #expect(species.status == .ok, "\(asked)")
                #expect(try species.object()["scientific_name"] as? String == Self.asciiHybrid, "\(asked)")
            }
            let full = try await client.send(.get, "/api/v1/species/\(path(Self.asciiHybrid))/full")
            #expect(full.status == .ok)
            #expect(try full.object()["scientific_name"] as? String == Self.asciiHybrid)
            let created = try await client.send(.post, "/api/v1/species/\(path(Self.asciiHybrid))/sources", json: #"{"source_id": 1, "leaves": "Spiny"}"#)
            #expect(created.status == .created)
            let rows = try await client.send(.get, "/api/v1/species/\(path(Self.asciiHybrid))/sources")
            #expect(rows.status == .ok)
            #expect(names(try rows.array()) == [Self.asciiHybrid])
            // The × spelling of a species stored with the sign is unchanged, and so is its ASCII spelling.
            for asked in [Self.signHybrid, "berberidifolia x douglasii"] {
                #expect(try await client.send(.get, "/api/v1/species/\(path(asked))").object()["scientific_name"] as? String == Self.signHybrid)
            }
        }
    }

    @Test("one epithet stored in both spellings: each spelling answers its own record, the exact stored name first")
    func bothSpellingsOfOneName() async throws {
        let env = try await environment()
        try await env.test { client in
            for name in ["x keepii", "× keepii"] {
                for _ in 0..<2 {  // the second read is answered from memory
                    let species = try await client.send(.get, "/api/v1/species/\(path(name))")
                    #expect(try species.object()["author"] as? String == "stored as '\(name)'", "\(name)")
                }
            }
        }
    }

    @Test("notes name a species by its exact stored name: create, list by species, and a pushed change are kept under it")
    func notesByExactName() async throws {
        let env = try await environment()
        try await env.test { client in
            let created = try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "\#(Self.asciiHybrid)", "fields": {"leaf": "spiny"}}"#)
            #expect(created.status == .created)
            #expect(try created.object()["scientificName"] as? String == Self.asciiHybrid)
            let listed = try await client.send(.get, "/api/v1/notes?species=\(path(Self.asciiHybrid))").array()
            #expect(listed.compactMap { $0["scientificName"] as? String } == [Self.asciiHybrid])
            let results = try await client.push([
                SyncWire.change(UUID().uuidString.lowercased(), at: env.clock.now, species: "x keepii", bark: "pushed"),
                SyncWire.change(UUID().uuidString.lowercased(), at: env.clock.now, species: "× keepii", bark: "pushed"),
            ])
            #expect(results.compactMap { $0["status"] as? String } == ["applied", "applied"])
            #expect(results.compactMap { ($0["note"] as? [String: Any])?["scientificName"] as? String } == ["x keepii", "× keepii"])
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE scientific_name = ?", ["x keepii"]) == 1)
        }
    }
}
