import ArgumentParser
import OakCLI

/// `oak source delete`.
struct SourceDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a source that no species' data uses.")
    @Argument(help: "The source's id.") var id: Int
    @Flag(help: "Delete without asking.") var force = false
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in try await SourceCommands.delete(context, id: id, confirmation: Confirmation(force: force)) }
    }
}
