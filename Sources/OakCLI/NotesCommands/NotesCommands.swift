import Foundation
import OakModels

/// `oak note`, `oak notes list|rm` and `oak sync`: a note is one species' data from one source (source 3,
/// personal observation, by default). In remote mode notes go through the profile's sync cache.
public enum NotesCommands {
    /// What each note field holds, for the editor's comments.
    static let fieldDescriptions: [String: String] = [
        "commonNames": "common names, separated by commas",
        "leaf": "leaves: shape, lobes, size, hairs",
        "acorn": "acorns and cups",
        "bark": "bark",
        "twigs": "twigs",
        "buds": "buds",
        "form": "growth habit: tree or shrub, size, crown",
        "rangeHabitat": "where it grows: range and habitat",
        "fieldNotes": "anything else seen in the field",
        "resources": "links and references",
    ]

    /// Says what became of a note write (saved, deleted, or queued in the sync cache), and prints the note with `--json`.
    static func report(_ context: CommandContext, _ write: NoteWrite, species: String, sourceId: Int) throws {
        let what = "the note on \(species) from source \(sourceId)"
        if let reason = write.queued {
            context.errors.line("Queued \(write.note == nil ? "the deletion of " : "")\(what) in the sync cache: \(reason). 'oak sync' sends it.")
        } else {
            context.errors.line(write.note == nil ? "Deleted \(what)." : "Saved \(what).")
        }
        if context.format == .json, let note = write.note { context.output.line(try CLIJSON.text(note)) }
    }
}
