import OakModels

/// The rule of a new species, over what a backend read: a species is one of a kind by its scientific name (409
/// naming it).
package enum SpeciesWrite {
    /// The species a create writes, given whether one is stored under its name.
    package static func create(_ species: Species, alreadyExists: Bool) throws -> Species {
        if alreadyExists {
            throw OakError(
                .conflict, "Species '\(species.scientificName)' already exists", details: ["scientific_name": .string(species.scientificName)])
        }
        return species
    }
}
