import ArgumentParser
import OakModels

/// `oak token revoke NAME`
struct TokenRevokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke a token; it stops working at once.")

    @OptionGroup var database: ExistingDatabaseOptions

    @Argument(help: "The token's name.")
    var name: String

    func run() async throws {
        do {
            try await database.openStore().revokeToken(name: name)
            say("Revoked token '\(name)'.")
        } catch let error as OakError where error.code == .notFound {
            throw ValidationError("No token named '\(name)'; see `oak token list`.")
        }
    }
}
