import Foundation
import OakModels

/// `oak taxa list|show|find|delete`.
public enum TaxaCommands {
    /// Every taxon, as a tree (subgenus > section > subsection > complex) with species counts.
    public static func list(_ context: CommandContext, level: TaxonLevel?) async throws {
        let taxa = try await context.catalog.listTaxa(level: level, parent: nil, limit: nil, offset: 0).data
        try context.print(taxa) { taxa in
            guard level == nil else { return flat(taxa) }
            var lines: [String] = []
            func walk(_ parent: Taxon?, depth: Int) {
                let children = taxa.filter {
                    parent == nil ? $0.level == .subgenus : ($0.level.parentLevel == parent?.level && $0.parent == parent?.name)
                }
                for child in children {
                    lines.append(String(repeating: "  ", count: depth) + "\(child.name) (\(child.level.rawValue), \(child.speciesCount ?? 0) species)")
                    walk(child, depth: depth + 1)
                }
            }
            walk(nil, depth: 0)
            // Taxa whose parent is missing still show, at the end.
            let orphans = taxa.filter { taxon in
                taxon.level != .subgenus && !taxa.contains { $0.level == taxon.level.parentLevel && $0.name == taxon.parent }
            }
            if !orphans.isEmpty { lines += ["", "Without a parent in the list:", flat(orphans)] }
            return lines.isEmpty ? "No taxa." : lines.joined(separator: "\n")
        }
    }

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

    public static func find(_ context: CommandContext, query: String) async throws {
        let taxa = try await context.catalog.search(query: query, limit: Pagination.maxLimit).taxa
        try context.print(taxa) { taxa in taxa.isEmpty ? "No taxon matches '\(query)'." : flat(taxa) }
    }

    public static func delete(_ context: CommandContext, level: TaxonLevel, name: String, confirmation: Confirmation) async throws {
        let taxon = try await context.catalog.taxon(level: level, name: name)
        try confirmation.require("Delete the \(level.rawValue) \(taxon.name) from the \(context.catalog.location)?")
        try await context.catalog.deleteTaxon(level: level, name: taxon.name)
        context.errors.line("Deleted \(level.rawValue) \(taxon.name).")
    }

    private static func flat(_ taxa: [Taxon]) -> String {
        var table = Table("LEVEL", "NAME", "PARENT", "SPECIES")
        for taxon in taxa { table.add(taxon.level.rawValue, taxon.name, taxon.parent ?? "", String(taxon.speciesCount ?? 0)) }
        return table.text
    }
}
