import Foundation
import OakModels
import OakStore
import OakStoreSQLite

extension DataCommands {
    /// Imports an export file (the original apps' `quercus_data.json`); see `SQLiteStore.importExport`.
    public static func importExport(_ context: CommandContext, path: String, dryRun: Bool) async throws {
        let store = try Imports.database(context, for: "import")
        let file = try RecordFile.decode(ExportFile.self, path: path, what: "an export file")
        let summary = try await Imports.run(context, "Importing") { progress in try await store.importExport(file, dryRun: dryRun, progress: progress) }
        try Imports.report(context, summary, path: path, dryRun: dryRun)
    }
}
