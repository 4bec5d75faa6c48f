import Foundation
import OakModels

extension NotesCommands {
    /// `oak notes rm SPECIES`.
    public static func remove(_ context: CommandContext, species: String, sourceId: Int) async throws {
        let book = try context.noteBook()
        let name = try await book.speciesName(species)
        try report(context, try await book.delete(species: name, sourceId: sourceId), species: name, sourceId: sourceId)
    }
}
