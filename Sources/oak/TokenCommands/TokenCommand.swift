import ArgumentParser

/// `oak token`: named API tokens with abilities.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Create, list and revoke API tokens.",
        discussion: "Tokens are stored as SHA-256 hashes; a new token's secret is printed once.",
        subcommands: [TokenCreateCommand.self, TokenListCommand.self, TokenRevokeCommand.self]
    )
}
