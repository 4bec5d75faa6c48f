import Foundation
import OakModels
import OakStore

extension DataCommands {
    public static func stats(_ context: CommandContext) async throws {
        let stats = try await context.catalog.stats()
        try context.print(stats) { stats in
            var table = Table("WHAT", "COUNT")
            table.add("species (not hybrids)", String(stats.speciesCount))
            table.add("hybrids", String(stats.hybridCount))
            table.add("taxa", String(stats.taxaCount))
            table.add("sources", String(stats.sourceCount))
            table.add("sources' data (species-sources)", String(stats.speciesSources))
            table.add("notes (source 3)", String(stats.notes))
            return table.text
        }
    }
}
