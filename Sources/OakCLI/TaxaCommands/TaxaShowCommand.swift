import Foundation
import OakModels

extension TaxaCommands {
    public static func show(_ context: CommandContext, level: TaxonLevel, name: String) async throws {
        let taxon = try await context.catalog.taxon(level: level, name: name)
        try context.print(taxon) { taxon in
            var lines = ["\(taxon.name) (\(taxon.level.rawValue))"]
            if let parent = taxon.parent { lines.append("  parent   \(parent)") }
            if let author = taxon.author { lines.append("  author   \(author)") }
            lines.append("  species  \(taxon.speciesCount ?? 0)")
            if let notes = taxon.notes { lines.append("  notes    \(notes)") }
            return lines.joined(separator: "\n")
        }
    }
}
