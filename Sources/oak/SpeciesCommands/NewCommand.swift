import ArgumentParser
import Foundation
import OakCLI

/// `oak new NAME`.
struct NewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new", abstract: "Add a species, written in your editor ($VISUAL or $EDITOR) as commented YAML.")

    @Argument(help: "The new species' name: 'robur', 'Quercus robur', 'x bebbiana' for a hybrid.")
    var name: String

    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in
            try await SpeciesCommands.newSpecies(context, name: name, editor: Editor(environment: context.environment))
        }
    }
}
