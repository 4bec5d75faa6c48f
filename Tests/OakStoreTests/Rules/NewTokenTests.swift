import Foundation
import OakModels
import OakStore
import Testing

/// The rules of a new token (`TokenRules.newToken`, `.checkNameFree`), over what a backend read.
@Suite("New token rules")
struct NewTokenTests {
    @Test("a new token: its abilities sorted, made now, with a new secret; a name with spaces or no ability is a 400")
    func newToken() throws {
        let now = Date(timeIntervalSince1970: 1_767_268_800)
        let (token, secret) = try TokenRules.newToken(name: "ci", abilities: [.taxaWrite, .notesWrite], at: now)
        #expect(token.name == "ci" && token.createdAt == now)
        #expect(token.abilities == [Ability.taxaWrite, .notesWrite].sorted())
        #expect(secret.hasPrefix("oak_") && secret.count == 68)
        #expect(fields(of: oakError { try TokenRules.newToken(name: "c i", abilities: [.admin], at: now) }) == ["name"])
        #expect(fields(of: oakError { try TokenRules.newToken(name: "ci", abilities: [], at: now) }) == ["abilities"])
    }

    @Test("a new token under a name another has is a 409; a free name passes")
    func tokenName() throws {
        let error = oakError { try TokenRules.checkNameFree("ci", taken: true) }
        #expect(error?.code == .conflict)
        #expect(error?.message == "A token named 'ci' already exists; revoke it first")
        try TokenRules.checkNameFree("ci", taken: false)
    }
}
