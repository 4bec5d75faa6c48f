import Foundation
import OakModels

extension NotesCommands {
    /// What `oak sync --status` reports.
    struct SyncReport: Encodable {
        var server: String
        var cache: String
        var pending: Int
        var lastSync: String?
        var state: String?
        var error: String?
    }

    /// `oak sync [--status]`: pushes the cache's pending notes and pulls the server's changes, or only reports.
    public static func sync(_ context: CommandContext, statusOnly: Bool) async throws {
        guard let book = try context.noteBook() as? SyncedNoteBook else {
            throw CLIError.usage("oak sync works with a server: give --profile, set OAK_PROFILE or OAK_API_URL, or 'oak config use NAME'")
        }
        var report = SyncReport(server: context.catalog.location, cache: book.repository.store.path ?? "(in memory)", pending: 0)
        if !statusOnly {
            let status = await book.sync()
            report.state = "\(status.state)"
            report.error = status.lastError
            if !status.setAside.isEmpty {
                context.errors.line("\(status.setAside.count) change(s) from the server could not be read and were set aside.")
            }
        }
        let (pending, lastSync) = try await book.pending()
        report.pending = pending
        report.lastSync = lastSync.map(WireTime.format)
        try context.print(report) { report in
            [
                "Server:      \(report.server)", "Cache:       \(report.cache)",
                "Pending:     \(report.pending) note change(s) waiting to be sent",
                "Last synced: \(report.lastSync ?? "never")",
            ].joined(separator: "\n")
        }
        switch report.state {
        case "offline": throw CLIError.network("Cannot reach the \(context.catalog.location); the changes stay queued")
        case "error": throw CLIError.failure("The sync failed: \(report.error ?? "unknown error")")
        default: break
        }
    }
}
