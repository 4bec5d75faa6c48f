import Foundation
import OakModels
import OakStore
import OakStoreKit

extension PostgresStore: TokenRepository {
    public func createToken(name: String, abilities: [Ability]) async throws -> (token: APIToken, secret: String) {
        let (token, secret) = try TokenRules.newToken(name: name, abilities: abilities, at: now)
        try await write { session in
            try TokenRules.checkNameFree(name, taken: try await session.row("SELECT 1 FROM api_tokens WHERE name = $1", [.text(name)]) != nil)
            try await session.insert(into: "api_tokens", TokenRules.columnValues(of: token, secret: secret))
        }
        return (token, secret)
    }

    public func listTokens() async throws -> [APIToken] {
        try await read { session in try await session.rows("SELECT * FROM api_tokens ORDER BY name").map(APIToken.init(row:)) }
    }

    public func revokeToken(name: String) async throws {
        try await write { session in
            if try await session.execute("DELETE FROM api_tokens WHERE name = $1", [.text(name)]) == 0 {
                throw OakError.notFound("Token", name)
            }
        }
    }

    public func authenticate(secret: String) async throws -> APIToken? {
        let presented = TokenRules.hash(secret)
        // Every stored hash is compared, each in constant time.
        let rows = try await read { session in try await session.rows("SELECT * FROM api_tokens") }
        guard var token = rows.last(where: { constantTimeEquals($0.text("token_hash") ?? "", presented) }).map(APIToken.init(row:)) else {
            return nil
        }
        let now = self.now
        if TokenRules.recordsUse(lastUsedAt: token.lastUsedAt, now: now) {
            token.lastUsedAt = now
            let name = token.name
            _ = try await write { session in
                try await session.execute("UPDATE api_tokens SET last_used_at = $1 WHERE name = $2", [StoredValue(now), .text(name)])
            }
        }
        return token
    }
}
