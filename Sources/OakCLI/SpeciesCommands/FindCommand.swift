import Foundation
import OakModels

extension SpeciesCommands {
    /// What `find` searches.
    public enum FindScope: String, CaseIterable, Sendable {
        case oak, source, both
    }

    /// Species (and, with `source` or `both`, sources) matching `query`; `idOnly` prints names (or ids) alone.
    public static func find(_ context: CommandContext, query: String, scope: FindScope, limit: Int, idOnly: Bool) async throws {
        let result = try await context.catalog.search(query: query, limit: limit)
        let species = scope == .source ? [] : result.species
        let sources = scope == .oak ? [] : result.sources
        if idOnly {
            for item in species { context.output.line(item.scientificName) }
            for item in sources { context.output.line(String(item.id)) }
            return
        }
        struct Found: Encodable {
            var species: [Species]
            var sources: [Source]
        }
        try context.print(Found(species: species, sources: sources)) { found in
            var lines: [String] = []
            if !found.species.isEmpty {
                var table = Table("NAME", "AUTHOR", "SUBGENUS", "SECTION", "STATUS")
                for item in found.species {
                    table.add(
                        item.scientificName, item.author ?? "", item.subgenus ?? "", item.section ?? "", item.conservationStatus ?? "")
                }
                lines.append(table.text)
            }
            if !found.sources.isEmpty {
                var table = Table("ID", "SOURCE", "TYPE")
                for item in found.sources { table.add(String(item.id), item.name, item.sourceType) }
                lines.append(table.text)
            }
            return lines.isEmpty ? "Nothing matches '\(query)'." : lines.joined(separator: "\n\n")
        }
    }
}
