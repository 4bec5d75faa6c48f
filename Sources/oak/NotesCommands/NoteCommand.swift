import ArgumentParser
import OakCLI
import OakModels

/// `oak note SPECIES [--source ID] [--set FIELD=VALUE …]`.
struct NoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "note", abstract: "Write a species' note: in your editor, or field by field with --set.",
        discussion: """
            A note is one species' data from one source (3, personal observation, by default). Fields: \
            \(NoteFieldsPatch.fieldNames.joined(separator: ", ")). With a server profile the note is saved in the \
            profile's sync cache (~/.oak/cache/PROFILE.sqlite) and sent at once; when the server cannot be \
            reached it stays queued for 'oak sync'.
            """)

    @Argument(help: "The species.") var species: String
    @Option(help: "The source's id.") var source = Source.personalObservationID
    @Option(name: .customLong("set"), help: ArgumentHelp("Set one field without the editor (repeatable; an empty value clears it).", valueName: "FIELD=VALUE"))
    var assignments: [String] = []
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in
            if assignments.isEmpty {
                try await NotesCommands.edit(context, species: species, sourceId: source, editor: Editor(environment: context.environment))
            } else {
                try await NotesCommands.set(context, species: species, sourceId: source, assignments: assignments)
            }
        }
    }
}
