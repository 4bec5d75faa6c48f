import ArgumentParser
import OakCLI

/// `oak taxa new`.
struct TaxaNewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "new", abstract: "Add a taxon, written in your editor as commented YAML.")

    @OptionGroup var taxon: TaxonArguments
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in
            try await TaxaCommands.newTaxon(context, level: try taxon.parsedLevel(), name: taxon.name, editor: Editor(environment: context.environment))
        }
    }
}
