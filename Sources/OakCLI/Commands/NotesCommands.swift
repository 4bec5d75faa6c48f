import Foundation
import OakModels
import OakSync

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

    /// `oak notes rm SPECIES`.
    public static func remove(_ context: CommandContext, species: String, sourceId: Int) async throws {
        let book = try context.noteBook()
        let name = try await book.speciesName(species)
        try report(context, try await book.delete(species: name, sourceId: sourceId), species: name, sourceId: sourceId)
    }

    private static func report(_ context: CommandContext, _ write: NoteWrite, species: String, sourceId: Int) throws {
        let what = "the note on \(species) from source \(sourceId)"
        if let reason = write.queued {
            context.errors.line("Queued \(write.note == nil ? "the deletion of " : "")\(what) in the sync cache: \(reason). 'oak sync' sends it.")
        } else {
            context.errors.line(write.note == nil ? "Deleted \(what)." : "Saved \(what).")
        }
        if context.format == .json, let note = write.note { context.output.line(try CLIJSON.text(note)) }
    }

    // MARK: Sync

    /// What `oak sync --status` reports.
    struct SyncReport: Encodable {
        var server: String
        var cache: String
        var pending: Int
        var lastSync: String?
        var state: String?
        var error: String?
    }

    /// `oak sync [--status]`: pushes the cache's pending notes and pulls the server's changes, or only reports.
    public static func sync(_ context: CommandContext, statusOnly: Bool) async throws {
        guard let book = try context.noteBook() as? SyncedNoteBook else {
            throw CLIError.usage("oak sync works with a server: give --profile, set OAK_PROFILE or OAK_API_URL, or 'oak config use NAME'")
        }
        var report = SyncReport(server: context.catalog.location, cache: book.repository.store.path ?? "(in memory)", pending: 0)
        if !statusOnly {
            let status = await book.sync()
            report.state = "\(status.state)"
            report.error = status.lastError
            if !status.setAside.isEmpty {
                context.errors.line("\(status.setAside.count) change(s) from the server could not be read and were set aside.")
            }
        }
        let (pending, lastSync) = try await book.pending()
        report.pending = pending
        report.lastSync = lastSync.map(WireTime.format)
        try context.print(report) { report in
            [
                "Server:      \(report.server)", "Cache:       \(report.cache)",
                "Pending:     \(report.pending) note change(s) waiting to be sent",
                "Last synced: \(report.lastSync ?? "never")",
            ].joined(separator: "\n")
        }
        switch report.state {
        case "offline": throw CLIError.network("Cannot reach the \(context.catalog.location); the changes stay queued")
        case "error": throw CLIError.failure("The sync failed: \(report.error ?? "unknown error")")
        default: break
        }
    }
}
