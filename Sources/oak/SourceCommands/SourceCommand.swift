import ArgumentParser

/// `oak source list|show|new|edit|delete`.
struct SourceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "source", abstract: "The sources descriptions are attributed to.",
        subcommands: [SourceListCommand.self, SourceShowCommand.self, SourceNewCommand.self, SourceEditCommand.self, SourceDeleteCommand.self])
}
