import Foundation
import OakModels

extension NotesCommands {
    public static func list(_ context: CommandContext, species: String?, sourceId: Int) async throws {
        let (notes, notice) = try await context.noteBook().notes(species: species, sourceId: sourceId)
        if let notice { context.errors.line(notice) }
        try context.print(notes) { notes in
            guard !notes.isEmpty else { return "No notes from source \(sourceId)\(species.map { " for \($0)" } ?? "")." }
            var table = Table("SPECIES", "UPDATED", "COMMON NAMES", "ID")
            for note in notes {
                table.add(note.scientificName, WireTime.format(note.updatedAt), note.fields.commonNames ?? "", note.id.wireString)
            }
            return table.text
        }
    }
}
