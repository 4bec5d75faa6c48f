import ArgumentParser
import OakCLI
import OakModels

/// `oak notes rm`.
struct NotesRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a species' note.")
    @Argument(help: "The species.") var species: String
    @Option(help: "The source's id.") var source = Source.personalObservationID
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in try await NotesCommands.remove(context, species: species, sourceId: source) }
    }
}
