import ArgumentParser
import OakCLI

/// `oak delete NAME`.
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a species and its sources' data (asks first; without a terminal, needs --force).")

    @Argument(help: "The species to delete.")
    var name: String

    @Flag(help: "Delete without asking.")
    var force = false

    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in
            try await SpeciesCommands.delete(context, name: name, confirmation: Confirmation(force: force))
        }
    }
}
