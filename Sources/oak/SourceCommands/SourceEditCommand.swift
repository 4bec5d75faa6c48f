import ArgumentParser
import OakCLI

/// `oak source edit`.
struct SourceEditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "edit", abstract: "Edit a source in your editor.")
    @Argument(help: "The source's id.") var id: Int
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in try await SourceCommands.editSource(context, id: id, editor: Editor(environment: context.environment)) }
    }
}
