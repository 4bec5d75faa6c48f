import Foundation
import OakModels

extension SourceCommands {
    public static func newSource(_ context: CommandContext, editor: Editor) async throws {
        let document = YAMLDocument.render(title: ["New source"], fields: sourceFields(nil))
        let created = try await editor.edit(document, name: "source-new", messages: context.errors) { text in
            try await context.catalog.createSource(try DecodingErrors.decode(SourcePatch.self, from: try YAMLDocument.json(text)))
        }
        context.errors.line(created.map { "Created source \($0.id) (\($0.name))." } ?? "Nothing created.")
    }
}
