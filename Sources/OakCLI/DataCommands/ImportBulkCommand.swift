import Foundation
import OakModels
import OakStore
import OakStoreSQLite

extension DataCommands {
    /// Imports species records (YAML or JSON: a list of species as the API spells them) from one source.
    public static func importBulk(
        _ context: CommandContext, path: String, sourceId: Int, policy: BulkConflictPolicy, dryRun: Bool
    ) async throws {
        let store = try Imports.database(context, for: "import-bulk")
        let entries = try RecordFile.decode([SpeciesPatch].self, path: path, what: "a list of species records")
        context.errors.line("Found \(entries.count) species record(s) in \(path).")
        let summary = try await Imports.run(context, "Importing") { progress in
            try await store.importBulk(entries, sourceId: sourceId, onConflict: policy, dryRun: dryRun, progress: progress)
        }
        try Imports.report(context, summary, path: path, dryRun: dryRun)
    }
}
