import ArgumentParser
import OakCLI

/// `oak taxa list`.
struct TaxaListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List every taxon as a tree, with species counts.")

    @Option(help: "Only this level, as a table: subgenus, section, subsection or complex.")
    var level: String?

    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in
            try await TaxaCommands.list(context, level: try level.map { try TaxaCommand.level($0) })
        }
    }
}
