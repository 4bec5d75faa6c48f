import ArgumentParser
import OakModels

/// The `oak` command: the Oak Compendium server and its tools.
@main
struct Oak: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Oak Compendium: a species database of oaks with field notes that sync.",
        version: VersionInfo.current.api,
        subcommands: [
            FindCommand.self, ShowCommand.self, NewCommand.self, EditCommand.self, DeleteCommand.self, TaxaCommand.self,
            SourceCommand.self, NoteCommand.self, NotesCommand.self, SyncCommand.self, StatsCommand.self, ExportCommand.self,
            ImportCommand.self, ImportBulkCommand.self, ConfigCommand.self, ServeCommand.self, TokenCommand.self,
            BackupCommand.self, MigrateCommand.self, DoctorCommand.self, VersionCommand.self,
        ],
        defaultSubcommand: nil
    )
}
