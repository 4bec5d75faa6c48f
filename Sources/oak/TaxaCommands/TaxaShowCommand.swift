import ArgumentParser
import OakCLI

/// `oak taxa show`.
struct TaxaShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one taxon.")

    @OptionGroup var taxon: TaxonArguments
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in try await TaxaCommands.show(context, level: try taxon.parsedLevel(), name: taxon.name) }
    }
}
