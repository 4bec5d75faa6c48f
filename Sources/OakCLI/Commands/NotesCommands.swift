import Foundation
import OakModels

/// `oak notes list`: notes are one species' data from one source (source 3, personal observation, by default).
public enum NotesCommands {
    public static func list(_ context: CommandContext, species: String?, sourceId: Int) async throws {
        let notes = try await context.catalog.notes(species: species, sourceId: sourceId)
        try context.print(notes) { notes in
            guard !notes.isEmpty else { return "No notes from source \(sourceId)\(species.map { " for \($0)" } ?? "")." }
            var table = Table("SPECIES", "UPDATED", "COMMON NAMES", "ID")
            for note in notes {
                table.add(note.scientificName, WireTime.format(note.updatedAt), note.fields.commonNames ?? "", note.id.uuidString.lowercased())
            }
            return table.text
        }
    }
}
