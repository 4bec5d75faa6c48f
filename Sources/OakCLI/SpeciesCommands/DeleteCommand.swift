import Foundation
import OakModels

extension SpeciesCommands {
    /// Deletes a species with its sources' data, once confirmed (see `Confirmation`).
    public static func delete(_ context: CommandContext, name: String, confirmation: Confirmation) async throws {
        let species = try await context.catalog.species(named: name)
        try confirmation.require("Delete Quercus \(species.scientificName) and all of its sources' data from the \(context.catalog.location)?")
        try await context.catalog.deleteSpecies(named: species.scientificName)
        context.errors.line("Deleted \(species.scientificName).")
    }
}
