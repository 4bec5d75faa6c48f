import Foundation
import OakModels

extension SourceCommands {
    public static func delete(_ context: CommandContext, id: Int, confirmation: Confirmation) async throws {
        let source = try await context.catalog.source(id: id)
        try confirmation.require("Delete source \(id) (\(source.name)) from the \(context.catalog.location)?")
        try await context.catalog.deleteSource(id: id)
        context.errors.line("Deleted source \(id).")
    }
}
