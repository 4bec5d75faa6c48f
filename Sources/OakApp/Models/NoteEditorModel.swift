import Foundation
import OakModels
import OakSync
import Observation

/// The note editor: one section per note field, saved on every change (the list updates at once and
/// the sync engine carries it), and dictation into any field. It follows its note: a change that arrives by sync
/// shows at once in every field the user is not in the middle of saving, and each save writes only the field
/// typed in, so the editor never puts back a field's old text.
@Observable @MainActor
public final class NoteEditorModel {
    public let noteID: UUID
    /// The species' full name, for the title.
    public private(set) var title = ""
    public private(set) var fields = NoteFields()
    public private(set) var state: NoteRowState = .synced
    /// Whether the note has been read: before that there is nothing to edit, and typing is ignored.
    public private(set) var isLoaded = false
    /// The field dictation writes into, while it listens.
    public private(set) var dictatingField: NoteFields.Field?
    /// Why the last save or dictation failed, if one did.
    public private(set) var lastError: String?
    /// Whether the note is gone (deleted elsewhere); the view closes.
    public private(set) var isMissing = false
    /// The note's photos on this device, oldest first.
    public private(set) var photos: [URL] = []
    /// Told when a photo is added or removed (the notes list shows counts and thumbnails).
    var photosChanged: (@MainActor () -> Void)?
    private let repository: NotesRepository
    private let dictation: any Dictation
    private let photoStore: NotePhotos?
    /// Saves run one after another, in the order of the edits.
    private var saving: Task<Void, Never>?
    /// The fields with a save not yet finished, and how many: the stored note does not have their text yet.
    private var unsaved: [NoteFields.Field: Int] = [:]
    private var following: Task<Void, Never>?
    private var listening: Task<Void, Never>?
    /// The field dictation writes into and its text before dictation began, for `cancelDictation()`.
    private var dictationStart: (field: NoteFields.Field, text: String)?

    init(noteID: UUID, repository: NotesRepository, dictation: any Dictation, photos: NotePhotos?) {
        self.noteID = noteID
        self.repository = repository
        self.dictation = dictation
        photoStore = photos
    }

    /// Whether the device keeps photos (a preview may not).
    public var canTakePhotos: Bool { photoStore != nil }

    /// Keeps a photo (JPEG, from the camera or the library) with the note, on this device only.
    public func addPhoto(_ jpeg: Data) {
        guard let photoStore, isLoaded else { return }
        do {
            try photoStore.add(jpeg, to: noteID)
            photos = photoStore.photos(of: noteID)
            photosChanged?()
        } catch {
            lastError = "Could not keep the photo: \(error.localizedDescription)"
        }
    }

    /// Removes one of the note's photos.
    public func removePhoto(_ photo: URL) {
        guard let photoStore else { return }
        do {
            try photoStore.remove(photo)
        } catch {
            lastError = "Could not remove the photo: \(error.localizedDescription)"
        }
        photos = photoStore.photos(of: noteID)
        photosChanged?()
    }

    /// Reads the note and follows it from then on; calling it again changes nothing.
    public func load() async {
        guard !isLoaded, !isMissing else { return }
        guard let note = try? await repository.note(id: noteID) else {
            isMissing = true
            return
        }
        title = Formatting.fullName(note.scientificName)
        show(note)
        photos = photoStore?.photos(of: noteID) ?? []
        isLoaded = true
        following = repository.observe(species: note.scientificName, sourceId: note.sourceId).follow { [weak self, noteID] notes in
            guard let self else { return }
            if let stored = notes.first(where: { $0.id == noteID }) { self.show(stored) } else { self.isMissing = true }
        }
    }

    /// Stops following the note (the editor closed).
    public func stop() {
        following?.cancel()
        following = nil
    }

    /// The note as stored, shown in every field without a save in flight (those keep what the user typed).
    private func show(_ note: LocalNote) {
        state = NoteRowState(note)
        for field in NoteFields.Field.allCases where unsaved[field] == nil && fields[field] != note.fields[field] {
            fields[field] = note.fields[field]
        }
    }

    /// The text of a field ("" when empty), for a text binding.
    public func text(_ field: NoteFields.Field) -> String {
        fields[field] ?? ""
    }

    /// Changes a field and saves it (empty text clears the field). Ignored until the note is loaded: an editor
    /// that has not read its note would otherwise save its empty fields over it.
    public func set(_ field: NoteFields.Field, to text: String) {
        guard isLoaded, text != self.text(field) else { return }
        let value = text.isEmpty ? nil : text
        fields[field] = value
        save(field, value)
    }

    /// Waits for the saves in flight (the editor closing, tests).
    public func flush() async {
        await saving?.value
    }

    private func save(_ field: NoteFields.Field, _ value: String?) {
        let (previous, repository, id) = (saving, repository, noteID)
        unsaved[field, default: 0] += 1
        saving = Task { [weak self] in
            await previous?.value
            let saved: LocalNote
            do {
                saved = try await repository.update(id: id, field: field, to: value)
            } catch {
                self?.finishedSaving(field)
                self?.lastError = "Could not save: \(error)"
                return
            }
            self?.finishedSaving(field)
            self?.show(saved)
            self?.lastError = nil
        }
    }

    private func finishedSaving(_ field: NoteFields.Field) {
        let left = (unsaved[field] ?? 1) - 1
        unsaved[field] = left > 0 ? left : nil
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
        dictationStart = (field, before)
        let transcripts = dictation.transcripts()
        listening = Task { [weak self] in
            do {
                for try await transcript in transcripts {
                    self?.set(field, to: Self.appending(transcript, to: before))
                }
            } catch {
                self?.lastError = Self.explanation(of: error)
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
        dictationStart = nil
    }

    /// Stops dictating and puts the field back as it was before dictation began.
    public func cancelDictation() async {
        let start = dictationStart
        await stopDictation()
        if let start { set(start.field, to: start.text) }
    }

    /// Why dictation stopped, in words: the platform's own explanation when it gives one (`DictationError`), never
    /// a raw error code.
    static func explanation(of error: any Error) -> String {
        if let reason = (error as? DictationError)?.errorDescription { return reason }
        return "Dictation stopped unexpectedly. Try again, or type the note."
    }

    /// A field's text with a transcript after it, separated by a space (or nothing when the field is empty).
    static func appending(_ transcript: String, to text: String) -> String {
        guard !text.isEmpty else { return transcript }
        guard !transcript.isEmpty else { return text }
        return text.hasSuffix(" ") || text.hasSuffix("\n") ? text + transcript : text + " " + transcript
    }
}
