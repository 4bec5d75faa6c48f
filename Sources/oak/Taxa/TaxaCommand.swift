import ArgumentParser
import OakCLI
import OakModels

/// `oak taxa list|show|find|delete`.
struct TaxaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "taxa", abstract: "Subgenera, sections, subsections and complexes.",
        subcommands: [List.self, Show.self, Find.self, Delete.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List every taxon as a tree, with species counts.")

        @Option(help: "Only this level, as a table: subgenus, section, subsection or complex.")
        var level: String?

        @OptionGroup var options: CatalogOptions

        func run() async throws {
            try await options.run { context in
                try await TaxaCommands.list(context, level: try level.map { try TaxaCommand.level($0) })
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one taxon.")

        @Argument(help: "subgenus, section, subsection or complex.") var level: String
        @Argument(help: "The taxon's name.") var name: String
        @OptionGroup var options: CatalogOptions

        func run() async throws {
            try await options.run { context in try await TaxaCommands.show(context, level: try TaxaCommand.level(level), name: name) }
        }
    }

    struct Find: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Find taxa by any part of their name.")

        @Argument(help: "Text to look for.") var query: String
        @OptionGroup var options: CatalogOptions

        func run() async throws {
            try await options.run { context in try await TaxaCommands.find(context, query: query) }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a taxon that no taxon or species uses.")

        @Argument(help: "subgenus, section, subsection or complex.") var level: String
        @Argument(help: "The taxon's name.") var name: String
        @Flag(help: "Delete without asking.") var force = false
        @OptionGroup var options: CatalogOptions

        func run() async throws {
            try await options.run { context in
                try await TaxaCommands.delete(context, level: try TaxaCommand.level(level), name: name, confirmation: Confirmation(force: force))
            }
        }
    }

    static func level(_ text: String) throws -> TaxonLevel {
        guard let level = TaxonLevel(rawValue: text) else {
            throw CLIError.usage("The level must be one of: \(TaxonLevel.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return level
    }
}
