import Crypto
import Foundation
import GRDB
import OakModels
import OakStore

extension SQLiteStore: TokenRepository {
    public func createToken(name: String, abilities: [Ability]) async throws -> (token: APIToken, secret: String) {
        var validator = Validator()
        validator.require(name, "name")
        validator.length(name, "name", 1...64)
        if name.contains(where: { $0.isWhitespace }) { validator.fail("name", "must not contain spaces") }
        if abilities.isEmpty { validator.fail("abilities", "name at least one ability") }
        try validator.check()
        let secret = "oak_" + (0..<32).map { _ in UInt8.random(in: 0...255) }.hexString
        let token = APIToken(name: name, abilities: abilities.sorted(), createdAt: now)
        try await write { db in
            if try Bool.fetchOne(db, cachedSQL: "SELECT EXISTS(SELECT 1 FROM api_tokens WHERE name = ?)", arguments: [name]) == true {
                throw OakError(.conflict, "A token named '\(name)' already exists; revoke it first")
            }
            try db.insert(
                into: "api_tokens",
                [
                    "name": StoredValue(name), "token_hash": StoredValue(Self.hash(secret)),
                    "abilities": StoredValue(token.abilities.map(\.rawValue).joined(separator: ",")), "created_at": StoredValue(token.createdAt),
                ])
        }
        return (token, secret)
    }

    public func listTokens() async throws -> [APIToken] {
        try read { db in try db.fetchAll(cachedSQL: "SELECT * FROM api_tokens ORDER BY name", Self.token(row:)) }
    }

    public func revokeToken(name: String) async throws {
        try await write { db in
            try db.execute(cachedSQL: "DELETE FROM api_tokens WHERE name = ?", arguments: [name])
            if db.changesCount == 0 { throw OakError.notFound("Token", name) }
        }
    }

    public func authenticate(secret: String) async throws -> APIToken? {
        let presented = Self.hash(secret)
        let match = try read { db -> APIToken? in
            // Every stored hash is compared, each in constant time.
            var match: APIToken?
            for row in try Row.fetchAll(db, cachedSQL: "SELECT * FROM api_tokens") where constantTimeEquals(row["token_hash"], presented) {
                match = Self.token(row: row)
            }
            return match
        }
        guard var token = match else { return nil }
        let now = self.now
        if token.lastUsedAt.map({ now.timeIntervalSince($0) > 60 }) ?? true {
            token.lastUsedAt = now
            let name = token.name
            try await write { db in
                try db.execute(
                    sql: "UPDATE api_tokens SET last_used_at = ? WHERE name = ?", arguments: [WireTime.formatPrecise(now), name])
            }
        }
        return token
    }

    static func hash(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).hexString
    }

    static func token(row: Row) -> APIToken {
        let abilities: String = row["abilities"]
        return APIToken(
            name: row["name"], abilities: abilities.split(separator: ",").compactMap { Ability(rawValue: String($0)) },
            createdAt: ColumnCoding.date(row["created_at"]), lastUsedAt: (row["last_used_at"] as String?).flatMap(WireTime.parse))
    }
}
