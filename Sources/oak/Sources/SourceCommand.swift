import ArgumentParser
import OakCLI

/// `oak source list|show|new|edit|delete`.
struct SourceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "source", abstract: "The sources descriptions are attributed to.", subcommands: [List.self, Show.self, New.self, Edit.self, Delete.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List every source, with how many species it describes.")
        @OptionGroup var options: CatalogOptions

        func run() async throws {
            try await options.run { context in try await SourceCommands.list(context) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one source.")
        @Argument(help: "The source's id.") var id: Int
        @OptionGroup var options: CatalogOptions

        func run() async throws {
            try await options.run { context in try await SourceCommands.show(context, id: id) }
        }
    }

    struct New: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a source, written in your editor as commented YAML.")
        @OptionGroup var options: CatalogOptions

        func run() async throws {
            try await options.run { context in try await EditCommands.newSource(context, editor: Editor(environment: context.environment)) }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Edit a source in your editor.")
        @Argument(help: "The source's id.") var id: Int
        @OptionGroup var options: CatalogOptions

        func run() async throws {
            try await options.run { context in try await EditCommands.editSource(context, id: id, editor: Editor(environment: context.environment)) }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a source that no species' data uses.")
        @Argument(help: "The source's id.") var id: Int
        @Flag(help: "Delete without asking.") var force = false
        @OptionGroup var options: CatalogOptions

        func run() async throws {
            try await options.run { context in try await SourceCommands.delete(context, id: id, confirmation: Confirmation(force: force)) }
        }
    }
}
