import ArgumentParser
import OakCLI

/// `oak stats`.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Count species, hybrids, taxa, sources and notes.")
    @OptionGroup var options: CatalogOptions

    func run() async throws {
        try await options.run { context in try await DataCommands.stats(context) }
    }
}
