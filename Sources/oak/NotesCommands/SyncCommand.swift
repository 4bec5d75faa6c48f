import ArgumentParser
import OakCLI

/// `oak sync [--status]`.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Send the notes queued in a profile's sync cache and fetch the server's changes.")

    @Flag(help: "Only show the pending changes and the last sync time.") var status = false
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in try await NotesCommands.sync(context, statusOnly: status) }
    }
}
