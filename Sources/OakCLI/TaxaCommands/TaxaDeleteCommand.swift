import Foundation
import OakModels

extension TaxaCommands {
    public static func delete(_ context: CommandContext, level: TaxonLevel, name: String, confirmation: Confirmation) async throws {
        let taxon = try await context.catalog.taxon(level: level, name: name)
        try confirmation.require("Delete the \(level.rawValue) \(taxon.name) from the \(context.catalog.location)?")
        try await context.catalog.deleteTaxon(level: level, name: taxon.name)
        context.errors.line("Deleted \(level.rawValue) \(taxon.name).")
    }
}
