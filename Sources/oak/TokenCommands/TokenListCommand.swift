import ArgumentParser
import OakModels

/// `oak token list`: names, abilities, created and last used; never secrets.
struct TokenListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List tokens (never their secrets).")

    @OptionGroup var database: ExistingDatabaseOptions

    func run() async throws {
        let tokens = try await database.openStore().listTokens()
        guard !tokens.isEmpty else {
            say("No tokens. Create one with: oak token create --name NAME --abilities notes:write")
            return
        }
        let rows = tokens.map { token in
            [
                token.name, token.abilities.map(\.rawValue).joined(separator: ","), WireTime.format(token.createdAt),
                token.lastUsedAt.map(WireTime.format) ?? "never",
            ]
        }
        let header = ["NAME", "ABILITIES", "CREATED", "LAST USED"]
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        for row in [header] + rows {
            say(row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  "))
        }
    }
}
