import ArgumentParser
import OakCLI
import OakModels

/// `oak taxa list|show|find|new|edit|delete|import`.
struct TaxaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "taxa", abstract: "Subgenera, sections, subsections and complexes.",
        subcommands: [List.self, Show.self, Find.self, New.self, Edit.self, Delete.self, Import.self])

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

        @OptionGroup var taxon: TaxonArguments
        @OptionGroup var options: CatalogOptions

        func run() async throws {
            try await options.run { context in try await TaxaCommands.show(context, level: try taxon.parsedLevel(), name: taxon.name) }
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

    struct New: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a taxon, written in your editor as commented YAML.")

        @OptionGroup var taxon: TaxonArguments
        @OptionGroup var options: CatalogOptions

        func run() async throws {
            try await options.run { context in
                try await EditCommands.newTaxon(context, level: try taxon.parsedLevel(), name: taxon.name, editor: Editor(environment: context.environment))
            }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Edit a taxon in your editor.")

        @OptionGroup var taxon: TaxonArguments
        @OptionGroup var options: CatalogOptions

        func run() async throws {
            try await options.run { context in
                try await EditCommands.editTaxon(context, level: try taxon.parsedLevel(), name: taxon.name, editor: Editor(environment: context.environment))
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load a taxa file: lists named subgenera, sections, subsections and complexes of {name, parent, author, notes, links}.",
            discussion: "New taxa are created and changed ones updated, parents first; one transaction. Works on a database file.")

        @Argument(help: "The YAML (or JSON) taxa file.") var file: String
        @Flag(help: "Report what would change and write nothing.") var dryRun = false
        @OptionGroup var options: CatalogOptions

        func run() async throws {
            try await options.run { context in try await ImportCommands.importTaxa(context, path: file, dryRun: dryRun) }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a taxon that no taxon or species uses.")

        @OptionGroup var taxon: TaxonArguments
        @Flag(help: "Delete without asking.") var force = false
        @OptionGroup var options: CatalogOptions

        func run() async throws {
            try await options.run { context in
                try await TaxaCommands.delete(context, level: try taxon.parsedLevel(), name: taxon.name, confirmation: Confirmation(force: force))
            }
        }
    }

    /// Parses a level given as text.
    static func level(_ text: String) throws -> TaxonLevel {
        guard let level = TaxonLevel(rawValue: text) else {
            throw CLIError.usage("The level must be one of: \(TaxonLevel.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return level
    }
}

/// The two arguments that name a taxon: its level and its name.
struct TaxonArguments: ParsableArguments {
    @Argument(help: "subgenus, section, subsection or complex.") var level: String
    @Argument(help: "The taxon's name.") var name: String

    func parsedLevel() throws -> TaxonLevel {
        try TaxaCommand.level(level)
    }
}
