import ArgumentParser
import OakCLI
import OakStore
import OakStoreSQLite

/// `oak import-bulk FILE --source-id N`.
struct ImportBulkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-bulk",
        abstract: "Load species records from a YAML or JSON list (keys as the API's: scientific_name, author, synonyms…).",
        discussion: """
            The records come from the source given, which must exist. Every record is validated; if any is bad, \
            each is reported with its index and field and nothing is written (one transaction). Works on a database file.
            """)

    @Argument(help: "A .yaml, .yml or .json file holding a list of species.") var file: String
    @Option(help: "The id of the source the records come from.") var sourceId: Int
    @Option(help: "For a species that exists: skip it, overwrite the fields the file gives, or merge (add list entries, fill empty fields).")
    var onConflict: BulkConflictPolicy = .merge
    @Flag(help: "Report what would change and write nothing.") var dryRun = false
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in
            try await DataCommands.importBulk(context, path: file, sourceId: sourceId, policy: onConflict, dryRun: dryRun)
        }
    }
}

extension BulkConflictPolicy: ExpressibleByArgument {}
