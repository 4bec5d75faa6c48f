import Foundation
import OakModels

extension SpeciesCommands {
    public static func newSpecies(_ context: CommandContext, name: String, editor: Editor) async throws {
        if let existing = try? await context.catalog.species(named: name) {
            throw CLIError.conflict("Quercus \(existing.scientificName) already exists; 'oak edit \(existing.scientificName)' changes it")
        }
        let document = YAMLDocument.render(title: ["New species: Quercus \(Species.normalizedName(name))"], fields: speciesFields(nil))
        let created = try await editor.edit(document, name: "species-\(name)", messages: context.errors) { text in
            var patch = try DecodingErrors.decode(SpeciesPatch.self, from: try YAMLDocument.json(text))
            patch.scientificName = .value(name)
            return try await context.catalog.createSpecies(patch)
        }
        guard let created else { return context.errors.line("Nothing created.") }
        context.errors.line("Created \(created.scientificName) in the \(context.catalog.location).")
    }
}
