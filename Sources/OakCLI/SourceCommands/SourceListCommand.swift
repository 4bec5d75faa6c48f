import Foundation
import OakModels

extension SourceCommands {
    public static func list(_ context: CommandContext) async throws {
        let sources = try await context.catalog.listSources()
        try context.print(sources) { sources in
            var table = Table("ID", "NAME", "TYPE", "LICENSE", "SPECIES")
            for source in sources {
                table.add(String(source.id), source.name, source.sourceType, source.license ?? "", String(source.speciesCount ?? 0))
            }
            return table.text
        }
    }
}
