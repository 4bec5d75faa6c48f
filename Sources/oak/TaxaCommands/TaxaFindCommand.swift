import ArgumentParser
import OakCLI

/// `oak taxa find`.
struct TaxaFindCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "find", abstract: "Find taxa by any part of their name.")

    @Argument(help: "Text to look for.") var query: String
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in try await TaxaCommands.find(context, query: query) }
    }
}
