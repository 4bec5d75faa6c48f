import Foundation
import OakModels

extension TaxaCommands {
    public static func editTaxon(_ context: CommandContext, level: TaxonLevel, name: String, editor: Editor) async throws {
        let taxon = try await context.catalog.taxon(level: level, name: name)
        let document = YAMLDocument.render(title: ["\(taxon.name) (\(level.rawValue))"], fields: taxonFields(taxon, level: level))
        let saved = try await editor.edit(document, name: "taxon-\(name)", messages: context.errors) { text in
            let patch = try DecodingErrors.decode(TaxonPatch.self, from: try YAMLDocument.json(text))
            return try await context.catalog.updateTaxon(level: level, name: taxon.name, with: patch)
        }
        context.errors.line(saved == nil ? "No changes." : "Saved \(level.rawValue) \(taxon.name).")
    }
}
