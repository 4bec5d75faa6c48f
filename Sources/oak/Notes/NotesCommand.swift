import ArgumentParser
import OakCLI
import OakModels

/// `oak notes list|rm`.
struct NotesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notes", abstract: "Field notes: one species' data from one source (3, personal observation, by default).",
        subcommands: [List.self, Remove.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List notes.")
        @Option(help: "Only this species' note.") var species: String?
        @Option(help: "The source's id.") var source = Source.personalObservationID
        @OptionGroup var options: CatalogOptions

        func run() async throws {
            try await options.run { context in try await NotesCommands.list(context, species: species, sourceId: source) }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a species' note.")
        @Argument(help: "The species.") var species: String
        @Option(help: "The source's id.") var source = Source.personalObservationID
        @OptionGroup var options: CatalogOptions

        func run() async throws {
            try await options.run { context in try await NotesCommands.remove(context, species: species, sourceId: source) }
        }
    }
}
