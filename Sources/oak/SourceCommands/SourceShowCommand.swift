import ArgumentParser
import OakCLI

/// `oak source show`.
struct SourceShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one source.")
    @Argument(help: "The source's id.") var id: Int
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in try await SourceCommands.show(context, id: id) }
    }
}
