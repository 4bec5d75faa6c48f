import ArgumentParser
import OakCLI

/// `oak taxa edit`.
struct TaxaEditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "edit", abstract: "Edit a taxon in your editor.")

    @OptionGroup var taxon: TaxonArguments
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in
            try await TaxaCommands.editTaxon(context, level: try taxon.parsedLevel(), name: taxon.name, editor: Editor(environment: context.environment))
        }
    }
}
