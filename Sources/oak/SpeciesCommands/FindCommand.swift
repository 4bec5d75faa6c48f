import ArgumentParser
import OakCLI

/// `oak find QUERY`.
struct FindCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find", abstract: "Find species (and sources) by any part of a name, synonym or local name.")

    @Argument(help: "Text to look for: 'lba' finds alba, 'x bebb' finds × bebbiana.")
    var query: String

    @Option(name: .shortAndLong, help: "What to search: oak, source or both.")
    var type: String = "oak"

    @Option(help: "At most this many results of each kind.")
    var limit = 50

    @Flag(name: [.customShort("i"), .customLong("id-only")], help: "Print only names (and source ids), one per line.")
    var idOnly = false

    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in
            guard let scope = SpeciesCommands.FindScope(rawValue: type) else {
                throw CLIError.usage("--type must be oak, source or both")
            }
            guard limit >= 1 else { throw CLIError.usage("--limit must be at least 1") }
            try await SpeciesCommands.find(context, query: query, scope: scope, limit: limit, idOnly: idOnly)
        }
    }
}
