import Foundation
import OakModels

extension NotesCommands {
    /// `oak note SPECIES --set FIELD=VALUE …`: changes the named fields, keeping the others.
    public static func set(_ context: CommandContext, species: String, sourceId: Int, assignments: [String]) async throws {
        var patch = NoteFieldsPatch()
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "=") else {
                throw CLIError.usage("--set takes FIELD=VALUE, not '\(assignment)'; the fields are: \(NoteFieldsPatch.fieldNames.joined(separator: ", "))")
            }
            do {
                try patch.set(String(assignment[..<equals]), to: String(assignment[assignment.index(after: equals)...]))
            } catch {
                throw CLIError.usage(CLIError(error).description)
            }
        }
        let book = try context.noteBook()
        let name = try await book.speciesName(species)
        var fields = try await book.note(species: name, sourceId: sourceId)?.fields ?? NoteFields()
        patch.apply(to: &fields)
        try report(context, try await book.save(species: name, sourceId: sourceId, fields: fields), species: name, sourceId: sourceId)
    }

    /// `oak note SPECIES`: the note in the editor, every field under a comment.
    public static func edit(_ context: CommandContext, species: String, sourceId: Int, editor: Editor) async throws {
        let book = try context.noteBook()
        let name = try await book.speciesName(species)
        let existing = try await book.note(species: name, sourceId: sourceId)
        let values = try JSONSerialization.jsonObject(with: JSONEncoder().encode(existing?.fields ?? NoteFields())) as? [String: Any] ?? [:]
        let fields = NoteFieldsPatch.fieldNames.map { key in
            YAMLDocument.Field(key, fieldDescriptions[key] ?? key, values[key] is NSNull ? nil : values[key])
        }
        let title = "\(existing == nil ? "New note" : "Note") on Quercus \(name) from source \(sourceId)"
        let document = YAMLDocument.render(title: [title], fields: fields)
        let written = try await editor.edit(document, name: "note-\(name)", messages: context.errors) { text in
            let patch = try DecodingErrors.decode(NoteFieldsPatch.self, from: try YAMLDocument.json(text))
            var fields = existing?.fields ?? NoteFields()
            patch.apply(to: &fields)
            return try await book.save(species: name, sourceId: sourceId, fields: fields)
        }
        guard let written else { return context.errors.line("No changes.") }
        try report(context, written, species: name, sourceId: sourceId)
    }
}
