import Crypto
import Foundation
import OakModels

/// The rules of API tokens every backend applies: names, secrets and how they are stored (hashes only).
package enum TokenRules {
    /// A new token named `name` with `abilities`, made `now`, and its secret (shown once, stored as its hash);
    /// its name and abilities checked (a 400 naming the field).
    package static func newToken(name: String, abilities: [Ability], at now: Date) throws -> (token: APIToken, secret: String) {
        try validate(name: name, abilities: abilities)
        return (APIToken(name: name, abilities: abilities.sorted(), createdAt: now), newSecret())
    }

    /// Checks a new token's name and abilities (a 400 naming the field).
    package static func validate(name: String, abilities: [Ability]) throws {
        var validator = Validator()
        validator.require(name, "name")
        validator.length(name, "name", 1...64)
        if name.contains(where: { $0.isWhitespace }) { validator.fail("name", "must not contain spaces") }
        if abilities.isEmpty { validator.fail("abilities", "name at least one ability") }
        try validator.check()
    }

    /// Refuses a new token whose name another token has (`taken`): a name is revoked before it is given again.
    package static func checkNameFree(_ name: String, taken: Bool) throws {
        if taken { throw OakError(.conflict, "A token named '\(name)' already exists; revoke it first") }
    }

    /// A new secret: `oak_` and 32 random bytes in hex.
    package static func newSecret() -> String {
        "oak_" + (0..<32).map { _ in UInt8.random(in: 0...255) }.hexString
    }

    /// What is stored of a secret: its SHA-256 in hex.
    package static func hash(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).hexString
    }

    /// Whether a token last used at `lastUsedAt` should have its use recorded at `now` (at most once a minute).
    package static func recordsUse(lastUsedAt: Date?, now: Date) -> Bool {
        lastUsedAt.map { now.timeIntervalSince($0) > 60 } ?? true
    }
}
