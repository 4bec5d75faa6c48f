import ArgumentParser
import Foundation
import OakCLI

/// `oak edit NAME`.
struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit", abstract: "Edit a species in your editor ($VISUAL or $EDITOR) as commented YAML.",
        discussion: "An invalid document re-opens with the errors on top and your text kept; quitting without saving changes nothing.")

    @Argument(help: "The species to edit.")
    var name: String

    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in
            try await SpeciesCommands.editSpecies(context, name: name, editor: Editor(environment: context.environment))
        }
    }
}
