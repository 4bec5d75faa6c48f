import Foundation
import OakModels

extension TaxaCommands {
    public static func find(_ context: CommandContext, query: String) async throws {
        let taxa = try await context.catalog.search(query: query, limit: Pagination.maxLimit).taxa
        try context.print(taxa) { taxa in taxa.isEmpty ? "No taxon matches '\(query)'." : flat(taxa) }
    }
}
