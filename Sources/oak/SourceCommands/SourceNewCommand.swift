import ArgumentParser
import OakCLI

/// `oak source new`.
struct SourceNewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "new", abstract: "Add a source, written in your editor as commented YAML.")
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in try await SourceCommands.newSource(context, editor: Editor(environment: context.environment)) }
    }
}
