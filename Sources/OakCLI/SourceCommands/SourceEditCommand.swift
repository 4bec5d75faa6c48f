import Foundation
import OakModels

extension SourceCommands {
    public static func editSource(_ context: CommandContext, id: Int, editor: Editor) async throws {
        let source = try await context.catalog.source(id: id)
        let document = YAMLDocument.render(title: ["Source \(id)"], fields: sourceFields(source))
        let saved = try await editor.edit(document, name: "source-\(id)", messages: context.errors) { text in
            try await context.catalog.updateSource(id: id, with: try DecodingErrors.decode(SourcePatch.self, from: try YAMLDocument.json(text)))
        }
        context.errors.line(saved == nil ? "No changes." : "Saved source \(id).")
    }
}
