import Foundation
import OakModels

/// `oak taxa list|show|find|new|edit|delete|import`.
public enum TaxaCommands {
    static func taxonFields(_ taxon: Taxon?, level: TaxonLevel) -> [YAMLDocument.Field] {
        [
            .init("parent", level.parentLevel.map { "the \($0.rawValue) it belongs to" } ?? "none: a subgenus has no parent", taxon?.parent),
            .init("author", "the taxonomic authority", taxon?.author),
            .init("notes", "free text", taxon?.notes),
        ]
    }

    static func flat(_ taxa: [Taxon]) -> String {
        var table = Table("LEVEL", "NAME", "PARENT", "SPECIES")
        for taxon in taxa { table.add(taxon.level.rawValue, taxon.name, taxon.parent ?? "", String(taxon.speciesCount ?? 0)) }
        return table.text
    }
}
