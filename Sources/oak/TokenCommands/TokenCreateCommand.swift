import ArgumentParser
import OakModels

/// `oak token create --name ipad --abilities notes:write,species:write`
struct TokenCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Create a token and print its secret once.")

    @OptionGroup var database: ExistingDatabaseOptions

    @Option(help: "A unique name for the token, e.g. the device it is for.")
    var name: String

    @Option(help: "Comma-separated abilities: \(Ability.allCases.map(\.rawValue).joined(separator: ", ")).")
    var abilities: String

    func run() async throws {
        let parsed: [Ability]
        do { parsed = try Ability.parseList(abilities) } catch let error as OakError { throw ValidationError(error.message) }
        let store = try await database.openStore()
        do {
            let (token, secret) = try await store.createToken(name: name, abilities: parsed)
            say("Created token '\(token.name)' with \(token.abilities.map(\.rawValue).joined(separator: ", ")).")
            say("Secret (shown once; store it now):\n  \(secret)")
        } catch let error as OakError {
            throw ValidationError(error.fieldErrors.first.map { "\($0.field) \($0.message)" } ?? error.message)
        }
    }
}
