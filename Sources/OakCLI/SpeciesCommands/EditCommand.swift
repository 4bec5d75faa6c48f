import Foundation
import OakModels

extension SpeciesCommands {
    public static func editSpecies(_ context: CommandContext, name: String, editor: Editor) async throws {
        let species = try await context.catalog.species(named: name)
        let document = YAMLDocument.render(title: ["Quercus \(species.scientificName)"], fields: speciesFields(species))
        let saved = try await editor.edit(document, name: "species-\(species.scientificName)", messages: context.errors) { text in
            let patch = try DecodingErrors.decode(SpeciesPatch.self, from: try YAMLDocument.json(text))
            return try await context.catalog.updateSpecies(named: species.scientificName, with: patch)
        }
        context.errors.line(saved == nil ? "No changes." : "Saved \(species.scientificName).")
    }
}
