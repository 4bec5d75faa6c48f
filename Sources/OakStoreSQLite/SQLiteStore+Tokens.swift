import Foundation
import GRDB
import OakModels
import OakSQLite
import OakStore
import OakStoreKit

extension SQLiteStore: TokenRepository {
    public func createToken(name: String, abilities: [Ability]) async throws -> (token: APIToken, secret: String) {
        let (token, secret) = try TokenRules.newToken(name: name, abilities: abilities, at: now)
        try await write { db in
            try TokenRules.checkNameFree(
                name, taken: try Bool.fetchOne(db, cachedSQL: "SELECT EXISTS(SELECT 1 FROM api_tokens WHERE name = ?)", arguments: [name]) == true)
            try db.insert(into: "api_tokens", TokenRules.columnValues(of: token, secret: secret))
        }
        return (token, secret)
    }

    public func listTokens() async throws -> [APIToken] {
        try read { db in try db.fetchAll(cachedSQL: "SELECT * FROM api_tokens ORDER BY name", APIToken.init(row:)) }
    }

    public func revokeToken(name: String) async throws {
        try await write { db in
            try db.execute(cachedSQL: "DELETE FROM api_tokens WHERE name = ?", arguments: [name])
            if db.changesCount == 0 { throw OakError.notFound("Token", name) }
        }
    }

    public func authenticate(secret: String) async throws -> APIToken? {
        let presented = TokenRules.hash(secret)
        let match = try read { db -> APIToken? in
            // Every stored hash is compared, each in constant time.
            var match: APIToken?
            for row in try Row.fetchAll(db, cachedSQL: "SELECT * FROM api_tokens") where constantTimeEquals(row["token_hash"], presented) {
                match = APIToken(row: row)
            }
            return match
        }
        guard var token = match else { return nil }
        let now = self.now
        if TokenRules.recordsUse(lastUsedAt: token.lastUsedAt, now: now) {
            token.lastUsedAt = now
            let name = token.name
            try await write { db in
                try db.execute(
                    sql: "UPDATE api_tokens SET last_used_at = ? WHERE name = ?", arguments: [WireTime.formatPrecise(now), name])
            }
        }
        return token
    }
}
