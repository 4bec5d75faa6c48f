import ArgumentParser
import OakCLI

/// `oak taxa import`.
struct TaxaImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Load a taxa file: lists named subgenera, sections, subsections and complexes of {name, parent, author, notes, links}.",
        discussion: "New taxa are created and changed ones updated, parents first; one transaction. Works on a database file.")

    @Argument(help: "The YAML (or JSON) taxa file.") var file: String
    @Flag(help: "Report what would change and write nothing.") var dryRun = false
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in try await TaxaCommands.importTaxa(context, path: file, dryRun: dryRun) }
    }
}
