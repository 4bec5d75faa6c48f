import ArgumentParser
import OakModels

/// `oak backup`: the same consistent snapshot as `POST /api/v1/backup`, from the command line.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write a consistent backup of the database.",
        discussion: """
            Safe while the server runs. To restore: stop the server, copy a backup over the database file \
            (or start with --db pointing at it), and start again.
            """
    )

    @OptionGroup var database: ExistingDatabaseOptions

    @Option(help: "Directory for backups.")
    var dir = "./backups"

    @Option(help: "How many backups to keep in the directory (older ones are deleted).")
    var keep = 7

    func run() async throws {
        guard keep >= 1 else { throw ValidationError("--keep must be at least 1") }
        let info = try await database.open().backup(into: dir, keep: keep)
        say("Backup written: \(dir)/\(info.filename) (\(info.size) bytes, \(WireTime.format(info.timestamp)))")
    }
}
