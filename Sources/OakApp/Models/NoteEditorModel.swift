import Foundation
import OakModels
import OakSync
import Observation

/// The note editor: one section per note field, saved on every change (the list updates at once and
/// the sync engine carries it), and dictation into any field.
@Observable @MainActor
public final class NoteEditorModel {
    public let noteID: UUID
    /// The species' full name, for the title.
    public private(set) var title = ""
    public private(set) var fields = NoteFields()
    public private(set) var state: NoteRowState = .synced
    /// The field dictation writes into, while it listens.
    public private(set) var dictatingField: NoteFields.Field?
    /// Why the last save or dictation failed, if one did.
    public private(set) var lastError: String?
    /// Whether the note is gone (deleted elsewhere); the view closes.
    public private(set) var isMissing = false
    private let repository: NotesRepository
    private let dictation: any Dictation
    /// Saves run one after another, in the order of the edits.
    private var saving: Task<Void, Never>?
    private var listening: Task<Void, Never>?

    init(noteID: UUID, repository: NotesRepository, dictation: any Dictation) {
        self.noteID = noteID
        self.repository = repository
        self.dictation = dictation
    }

    /// Reads the note.
    public func load() async {
        guard let note = try? await repository.note(id: noteID) else {
            isMissing = true
            return
        }
        title = Formatting.fullName(note.scientificName)
        fields = note.fields
        state = NoteRowState(note)
    }

    /// The text of a field ("" when empty), for a text binding.
    public func text(_ field: NoteFields.Field) -> String {
        fields[field] ?? ""
    }

    /// Changes a field and saves the note (empty text clears the field).
    public func set(_ field: NoteFields.Field, to text: String) {
        guard text != self.text(field) else { return }
        fields[field] = text.isEmpty ? nil : text
        save()
    }

    /// Waits for the saves in flight (the editor closing, tests).
    public func flush() async {
        await saving?.value
    }

    private func save() {
        let (previous, fields, repository, id) = (saving, fields, repository, noteID)
        saving = Task { [weak self] in
            await previous?.value
            do {
                let note = try await repository.update(id: id, fields: fields)
                self?.state = NoteRowState(note)
                self?.lastError = nil
            } catch {
                self?.lastError = "Could not save: \(error)"
            }
        }
    }

    // MARK: Dictation

    /// Starts dictating into `field`: the transcript is added after the field's text as it grows, and saved.
    public func startDictation(into field: NoteFields.Field) async {
        await stopDictation()
        guard await dictation.requestAuthorization() else {
            lastError = "Dictation needs permission for speech recognition and the microphone (Settings › Privacy)."
            return
        }
        dictatingField = field
        let before = text(field)
        let transcripts = dictation.transcripts()
        listening = Task { [weak self] in
            do {
                for try await transcript in transcripts {
                    self?.set(field, to: Self.appending(transcript, to: before))
                }
            } catch {
                self?.lastError = "Dictation stopped: \(error)"
            }
            self?.dictatingField = nil
        }
    }

    /// Stops dictating; what was heard is kept.
    public func stopDictation() async {
        guard let listening else { return }
        await dictation.stop()
        await listening.value
        self.listening = nil
    }

    /// A field's text with a transcript after it, separated by a space (or nothing when the field is empty).
    static func appending(_ transcript: String, to text: String) -> String {
        guard !text.isEmpty else { return transcript }
        guard !transcript.isEmpty else { return text }
        return text.hasSuffix(" ") || text.hasSuffix("\n") ? text + transcript : text + " " + transcript
    }
}
