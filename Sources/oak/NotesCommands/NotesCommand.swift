import ArgumentParser

/// `oak notes list|rm`.
struct NotesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notes", abstract: "Field notes: one species' data from one source (3, personal observation, by default).",
        subcommands: [NotesListCommand.self, NotesRemoveCommand.self])
}
