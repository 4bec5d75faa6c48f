import ArgumentParser
import OakCLI
import OakModels

/// `oak notes list`.
struct NotesListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List notes.")
    @Option(help: "Only this species' note.") var species: String?
    @Option(help: "The source's id.") var source = Source.personalObservationID
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in try await NotesCommands.list(context, species: species, sourceId: source) }
    }
}
