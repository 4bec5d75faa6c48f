import ArgumentParser
import OakCLI
import OakModels

/// `oak notes list`.
struct NotesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notes", abstract: "Field notes: one species' data from one source (3, personal observation, by default).",
        subcommands: [List.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List notes.")
        @Option(help: "Only this species' note.") var species: String?
        @Option(help: "The source's id.") var source = Source.personalObservationID
        @OptionGroup var options: CatalogOptions

        func run() async throws {
            try await options.run { context in try await NotesCommands.list(context, species: species, sourceId: source) }
        }
    }
}
