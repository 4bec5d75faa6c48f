import Foundation
import OakModels

extension TaxaCommands {
    public static func newTaxon(_ context: CommandContext, level: TaxonLevel, name: String, editor: Editor) async throws {
        if (try? await context.catalog.taxon(level: level, name: name)) != nil {
            throw CLIError.conflict("The \(level.rawValue) \(name) already exists; 'oak taxa edit \(level.rawValue) \(name)' changes it")
        }
        let document = YAMLDocument.render(title: ["New \(level.rawValue): \(name)"], fields: taxonFields(nil, level: level))
        let created = try await editor.edit(document, name: "taxon-\(name)", messages: context.errors) { text in
            var patch = try DecodingErrors.decode(TaxonPatch.self, from: try YAMLDocument.json(text))
            patch.name = .value(name)
            patch.level = .value(level.rawValue)
            return try await context.catalog.createTaxon(patch)
        }
        context.errors.line(created.map { "Created \($0.level.rawValue) \($0.name)." } ?? "Nothing created.")
    }
}
