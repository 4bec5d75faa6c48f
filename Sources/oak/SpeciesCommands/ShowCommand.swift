import ArgumentParser
import OakCLI

/// `oak show NAME`.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a species with every source's data.")

    @Argument(help: "The species: alba, 'Quercus alba', 'x bebbiana'.")
    var name: String

    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in try await SpeciesCommands.show(context, name: name) }
    }
}
