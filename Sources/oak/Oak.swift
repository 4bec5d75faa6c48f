import ArgumentParser

/// The `oak` command: the Oak Compendium server and its tools.
@main
struct Oak: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Oak Compendium: a species database of oaks with field notes that sync.",
        subcommands: [ServeCommand.self, TokenCommand.self, BackupCommand.self, BenchCommand.self, VersionCommand.self],
        defaultSubcommand: nil
    )
}
