import Foundation
import Hummingbird
import HummingbirdTesting
import OakModels
import Testing

@Suite("API tokens with abilities")
struct TokenAuthTests {
    @Test("the owner key has every ability")
    func ownerHasEverything() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            #expect(try await client.send(.post, "/api/v1/species", json: #"{"scientific_name": "ownerwrite"}"#).status == .created)
            // Allowed: written on SQLite; on PostgreSQL, refused as the database's job (never 401 or 403).
            #expect(try await client.send(.post, "/api/v1/backup").status == (env.backend == .sqlite ? .created : .conflict))
            let verify = try await client.send(.get, "/api/v1/auth/verify").object()
            #expect(verify["name"] as? String == "owner")
            #expect(verify["abilities"] as? [String] == ["admin"])
        }
    }

    @Test("a valid token lacking the ability gets 403; with it the write succeeds")
    func abilitiesEnforced() async throws {
        let env = try await TestEnvironment()
        let (_, secret) = try await env.store.createToken(name: "ipad", abilities: [.notesWrite])
        try await env.test { client in
            let species = try await client.send(.post, "/api/v1/species", json: #"{"scientific_name": "tokenwrite"}"#, key: secret)
            #expect(species.status == .forbidden)
            #expect(try species.error().code == "FORBIDDEN")
            #expect(try species.error().details["required_ability"] as? String == "species:write")
            let note = try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba"}"#, key: secret)
            #expect(note.status == .created)
            let push = try await client.send(.post, "/api/v1/sync/push", json: #"{"changes": []}"#, key: secret)
            #expect(push.status == .ok)
            #expect(try await client.send(.post, "/api/v1/backup", key: secret).status == .forbidden)
            #expect(try await env.count("SELECT COUNT(*) FROM oak_entries WHERE scientific_name = 'tokenwrite'") == 0)
        }
    }

    @Test("a missing or invalid token on a write gets 401; a revoked token stops working")
    func invalidAndRevoked() async throws {
        let env = try await TestEnvironment()
        let (_, secret) = try await env.store.createToken(name: "phone", abilities: [.admin])
        try await env.test { client in
            #expect(try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba"}"#, key: nil).status == .unauthorized)
            #expect(try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba"}"#, key: "oak_0000").status == .unauthorized)
            #expect(try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba"}"#, key: secret).status == .created)
            try await env.store.revokeToken(name: "phone")
            #expect(try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "robur"}"#, key: secret).status == .unauthorized)
        }
    }

    @Test("auth/verify answers 200 with name and abilities for a valid token, 401 otherwise")
    func verify() async throws {
        let env = try await TestEnvironment()
        let (_, secret) = try await env.store.createToken(name: "field-kit", abilities: [.notesWrite, .speciesWrite])
        try await env.test { client in
            let ok = try await client.send(.get, "/api/v1/auth/verify", key: secret)
            #expect(ok.status == .ok)
            #expect(try ok.object()["name"] as? String == "field-kit")
            #expect(try ok.object()["abilities"] as? [String] == ["notes:write", "species:write"])
            #expect(try await client.send(.get, "/api/v1/auth/verify", key: nil).status == .unauthorized)
            #expect(try await client.send(.get, "/api/v1/auth/verify", key: "nope").status == .unauthorized)
        }
    }

    @Test("Authorization: Bearer and X-API-Key are both accepted")
    func bothHeaders() async throws {
        let env = try await TestEnvironment()
        let (_, secret) = try await env.store.createToken(name: "script", abilities: [.taxaWrite])
        try await env.test { client in
            let viaHeader = try await client.send(
                .post, "/api/v1/taxa", json: #"{"name": "Viaheader", "level": "section", "parent": "Quercus"}"#, key: nil,
                headers: [.init("X-API-Key")!: secret])
            #expect(viaHeader.status == .created)
            let viaBearer = try await client.send(.get, "/api/v1/auth/verify", key: secret)
            #expect(viaBearer.status == .ok)
        }
    }

    @Test("tokens are stored only as SHA-256 hashes; list shows name, abilities, created and last used")
    func storedAsHashes() async throws {
        let env = try await TestEnvironment()
        let (token, secret) = try await env.store.createToken(name: "laptop", abilities: [.sourcesWrite])
        #expect(secret.hasPrefix("oak_"))
        #expect(try await env.count("SELECT COUNT(*) FROM api_tokens WHERE token_hash = ?", [secret]) == 0)
        #expect(try await env.count("SELECT COUNT(*) FROM api_tokens WHERE length(token_hash) = 64") == 1)
        #expect(try await env.store.listTokens().first?.lastUsedAt == nil)
        _ = try await env.store.authenticate(secret: secret)
        let listed = try #require(try await env.store.listTokens().first)
        #expect(listed.name == token.name)
        #expect(listed.abilities == [.sourcesWrite])
        #expect(listed.lastUsedAt != nil)
        await #expect(throws: OakError.self) { _ = try await env.store.createToken(name: "laptop", abilities: [.admin]) }
    }
}
