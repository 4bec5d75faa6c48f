import ArgumentParser
import OakCLI

/// `oak source list`.
struct SourceListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List every source, with how many species it describes.")
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in try await SourceCommands.list(context) }
    }
}
