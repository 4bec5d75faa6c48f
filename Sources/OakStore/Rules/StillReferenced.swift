import OakModels

/// The rule of deletes over what still refers to the record, as a backend read it: a taxon, a source or a species
/// is not deleted while something names it (409, its details listing what does, so a client can change or delete
/// those first). A species' own source data goes with it, so it does not count.
package enum StillReferenced {
    /// Refuses to delete a taxon while taxa one level down (`childTaxa`) or `species` name it.
    package static func checkTaxonDelete(_ taxon: Taxon, childTaxa: [String], species: [String]) throws {
        guard childTaxa.isEmpty, species.isEmpty else {
            throw OakError(
                .conflict,
                "Taxon \(taxon.level.rawValue) '\(taxon.name)' is still used by \(childTaxa.count) taxa and \(species.count) species",
                details: [
                    "blocking_taxa": .array(childTaxa.map(JSONValue.string)), "blocking_species": .array(species.map(JSONValue.string)),
                ])
        }
    }

    /// Refuses to delete a source while species have data from it (`species`, their names).
    package static func checkSourceDelete(id: Int, species: [String]) throws {
        guard species.isEmpty else {
            throw OakError(
                .conflict, "Source \(id) is used by the data of \(species.count) species; delete that data first",
                details: ["blocking_species": .array(species.map(JSONValue.string))])
        }
    }

    /// Refuses to delete a species while hybrids name it as a parent (`hybrids`, their names).
    package static func checkSpeciesDelete(_ species: Species, hybrids: [String]) throws {
        guard hybrids.isEmpty else {
            throw OakError(
                .conflict, "Species '\(species.scientificName)' is a parent of \(hybrids.count) hybrid(s); change or delete them first",
                details: ["blocking_hybrids": .array(hybrids.map(JSONValue.string))])
        }
    }
}
