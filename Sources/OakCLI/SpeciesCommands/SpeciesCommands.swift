import Foundation
import OakModels

/// `oak find`, `oak show`, `oak new`, `oak edit`, `oak delete`: species.
public enum SpeciesCommands {
    static func speciesFields(_ species: Species?) -> [YAMLDocument.Field] {
        [
            .init("author", "the taxonomic authority, e.g. L. or Michx.", species?.author),
            .init("is_hybrid", "true or false", species?.isHybrid ?? false),
            .init("conservation_status", "IUCN category: \(Species.conservationStatuses.joined(separator: ", "))", species?.conservationStatus),
            .init("subgenus", Species.subgenera.joined(separator: ", "), species?.subgenus),
            .init("section", "the section, e.g. Lobatae", species?.section),
            .init("subsection", "the subsection, if any", species?.subsection),
            .init("complex", "the species complex, if any", species?.complex),
            .init("parent1", "a hybrid's first parent (a species name)", species?.parent1),
            .init("parent2", "a hybrid's second parent", species?.parent2),
            .init("hybrids", "hybrids of this species: a list of names", species?.hybrids ?? []),
            .init("closely_related_to", "a list of species names", species?.closelyRelatedTo ?? []),
            .init("subspecies_varieties", "a list of subspecies and varieties", species?.subspeciesVarieties ?? []),
            .init("synonyms", "a list of other names, with authors", species?.synonyms ?? []),
        ]
    }
}
