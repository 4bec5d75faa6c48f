import ArgumentParser
import OakCLI

/// `oak taxa delete`.
struct TaxaDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a taxon that no taxon or species uses.")

    @OptionGroup var taxon: TaxonArguments
    @Flag(help: "Delete without asking.") var force = false
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in
            try await TaxaCommands.delete(context, level: try taxon.parsedLevel(), name: taxon.name, confirmation: Confirmation(force: force))
        }
    }
}
