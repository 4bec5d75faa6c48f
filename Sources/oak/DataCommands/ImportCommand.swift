import ArgumentParser
import OakCLI

/// `oak import FILE.json`.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Load an export file (quercus_data.json) into the database: sources by id, species by name, data by species and source.",
        discussion: """
            Importing the same file twice changes nothing. Everything is one transaction: if any record is bad, \
            each is reported with its place and nothing is written. Works on a database file (--local).
            """)

    @Argument(help: "The export file.") var file: String
    @Flag(help: "Report what would change and write nothing.") var dryRun = false
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in try await DataCommands.importExport(context, path: file, dryRun: dryRun) }
    }
}
