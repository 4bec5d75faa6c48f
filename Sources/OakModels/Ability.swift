import Foundation

/// What a token may do. Reads need none; every write needs the ability of its resource.
public enum Ability: String, Codable, CaseIterable, Sendable, Comparable {
    case notesWrite = "notes:write"
    case speciesWrite = "species:write"
    case taxaWrite = "taxa:write"
    case sourcesWrite = "sources:write"
    /// Everything, including backups.
    case admin

    public static func < (lhs: Ability, rhs: Ability) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Parses `notes:write,species:write`, naming the bad entry otherwise.
    public static func parseList(_ text: String) throws -> [Ability] {
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !items.isEmpty else { throw OakError.invalid("abilities", "name at least one ability") }
        return try Array(
            Set(
                items.map { item in
                    guard let ability = Ability(rawValue: item) else {
                        throw OakError.invalid("abilities", "'\(item)' is not one of: \(allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    return ability
                })
        ).sorted()
    }
}

/// A named API token; the secret itself is shown once at creation and stored only as a hash.
public struct APIToken: Codable, Hashable, Sendable {
    public var name: String
    public var abilities: [Ability]
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(name: String, abilities: [Ability], createdAt: Date, lastUsedAt: Date? = nil) {
        self.name = name
        self.abilities = abilities
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    /// Whether the token may do what `ability` allows (admin may do everything).
    public func allows(_ ability: Ability) -> Bool {
        abilities.contains(ability) || abilities.contains(.admin)
    }
}

/// Compares two secrets in time that depends only on their lengths.
public func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
    let left = Array(lhs.utf8)
    let right = Array(rhs.utf8)
    var difference = UInt8(truncatingIfNeeded: left.count ^ right.count)
    for index in 0..<max(left.count, right.count) {
        difference |= (index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0)
    }
    return difference == 0
}

/// Who a key belongs to and what it may do (`GET /api/v1/auth/verify`).
public struct VerifiedKey: Codable, Hashable, Sendable {
    /// Always `authenticated`, the key the original clients read.
    public var status: String
    public var name: String
    public var abilities: [Ability]

    public init(name: String, abilities: [Ability]) {
        self.status = "authenticated"
        self.name = name
        self.abilities = abilities
    }
}
