import Foundation
import OakModels

extension TaxaCommands {
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
}
