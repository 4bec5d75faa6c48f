import Foundation
import OakModels
import OakSync
import Observation

/// Where a note stands with the server, as a row shows it.
public enum NoteRowState: Hashable, Sendable {
    case synced
    case waitingToUpload
    case waitingToDelete
    /// The server refused the change; the reason says why (edit the note to try again).
    case failed(reason: String)

    public init(_ note: LocalNote) {
        if note.isRejected, let error = note.lastError {
            self = .failed(reason: error.summary)
            return
        }
        switch note.syncStatus {
        case .synced: self = .synced
        case .pendingUpload: self = .waitingToUpload
        case .pendingDelete: self = .waitingToDelete
        }
    }

    /// The state in words.
    public var label: String {
        switch self {
        case .synced: "Synced"
        case .waitingToUpload: "Waiting to upload"
        case .waitingToDelete: "Waiting to delete"
        case .failed(let reason): "Not accepted: \(reason)"
        }
    }
}

/// One note in the notes list.
public struct NoteRow: Hashable, Sendable, Identifiable {
    public var id: UUID
    /// The species' stored name.
    public var species: String
    /// The first common name, or the full species name.
    public var title: String
    /// The full species name when the title is a common name, and the source when it is not your own observation.
    public var subtitle: String?
    public var state: NoteRowState
    public var updatedAt: Date
    /// How many photos the note has on this device, and the first, for a thumbnail.
    public var photoCount = 0
    public var thumbnail: URL?
}

/// A group of the notes list: one subgenus.
public struct NoteGroup: Hashable, Sendable, Identifiable {
    public var title: String
    public var rows: [NoteRow]

    public var id: String { title }
}

/// The notes on this device from every source (your own observations and what you noted from books and other
/// sources), grouped by subgenus, with search, swipe to delete with undo, and each row's sync state.
@Observable @MainActor
public final class NotesListModel {
    public var searchText = "" {
        didSet { if searchText != oldValue { rebuild() } }
    }
    public private(set) var groups: [NoteGroup] = []
    /// The note just deleted, until `undoDelete()` or the next delete; the view offers "Undo" while it is set.
    public private(set) var recentlyDeleted: LocalNote?
    /// The last failure of a delete or undo, for an alert.
    public private(set) var lastError: String?
    var repository: NotesRepository?
    private let store: LocalStore
    private let photos: NotePhotos?
    /// Each note's photos, read again only when photos change (not on every rebuild of the rows).
    private var photosByNote: [UUID: [URL]] = [:]
    private var notes: [LocalNote] = []
    /// Source names by id, for the rows of notes that are not your own observations.
    private var sourceNames: [Int: String] = [:]
    private var observing: [Task<Void, Never>] = []

    init(store: LocalStore, photos: NotePhotos?) {
        self.store = store
        self.photos = photos
    }

    /// Follows the notes: local writes and syncs show at once.
    func start() {
        guard observing.isEmpty, let repository else { return }
        photosByNote = photos?.byNote() ?? [:]
        observing = [
            repository.observe(sourceId: nil).follow { [weak self] notes in
                self?.notes = notes
                self?.rebuild()
            },
            store.observeCatalog().follow { [weak self] catalog in
                self?.sourceNames = Dictionary(catalog.sources.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
                self?.rebuild()
            },
        ]
    }

    /// Deletes a note (swipe): its row goes at once, the delete waits for the next sync, and "Undo" brings it back.
    public func delete(_ id: UUID) async {
        guard let repository else { return }
        do {
            let deleted = try await repository.delete(id: id)
            forgetRecentlyDeleted()
            recentlyDeleted = deleted
        } catch {
            lastError = "Could not delete the note: \(error)"
        }
    }

    /// Brings back the note deleted last, with its fields.
    public func undoDelete() async {
        guard let repository, let note = recentlyDeleted else { return }
        recentlyDeleted = nil
        do {
            try await repository.create(scientificName: note.scientificName, sourceId: note.sourceId, fields: note.fields)
        } catch {
            lastError = "Could not bring the note back: \(error)"
        }
    }

    /// The user has read the error: its alert goes away.
    public func dismissError() {
        lastError = nil
    }

    /// A note's photos changed: the rows' counts and thumbnails follow.
    func photosChanged() {
        photosByNote = photos?.byNote() ?? [:]
        rebuild()
    }

    /// Forgets the undo offer (the banner timed out): the deleted note's photos go with it.
    public func dismissUndo() {
        forgetRecentlyDeleted()
    }

    /// The undo offer ends (timed out, or another note deleted): the note cannot come back from here, so its
    /// photos, which are on this device only, are removed.
    private func forgetRecentlyDeleted() {
        guard let note = recentlyDeleted else { return }
        recentlyDeleted = nil
        try? photos?.removeAll(of: note.id)
        photosByNote[note.id] = nil
    }

    private func rebuild() {
        let query = searchText.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let matching = notes.filter { note in
            query.isEmpty || Formatting.fullName(note.scientificName).lowercased().contains(query)
                || note.scientificName.lowercased().contains(query) || (note.fields.commonNames?.lowercased().contains(query) ?? false)
        }
        let bySubgenus = Dictionary(grouping: matching) { $0.taxonomy.subgenus ?? "" }
        groups = bySubgenus.keys.sorted(by: Formatting.groupOrder).map { key in
            NoteGroup(
                title: key.isEmpty ? "Unplaced" : "Subgenus \(key)",
                rows: bySubgenus[key, default: []].sorted { Self.listOrder($0) < Self.listOrder($1) }.map(row))
        }
    }

    /// By species, your own note before the sources' notes, then by source.
    private static func listOrder(_ note: LocalNote) -> (String, Int, Int) {
        (note.scientificName, note.sourceId == Source.personalObservationID ? 0 : 1, note.sourceId)
    }

    private func row(_ note: LocalNote) -> NoteRow {
        let common = Formatting.firstCommonName(note.fields.commonNames)
        let full = Formatting.fullName(note.scientificName)
        let source = note.sourceId == Source.personalObservationID ? nil : "from \(sourceNames[note.sourceId] ?? "source \(note.sourceId)")"
        let subtitle = [common == nil ? nil : full, source].compactMap { $0 }.joined(separator: " · ")
        let pictures = photosByNote[note.id] ?? []
        return NoteRow(
            id: note.id, species: note.scientificName, title: common ?? full, subtitle: subtitle.isEmpty ? nil : subtitle,
            state: NoteRowState(note), updatedAt: note.updatedAt, photoCount: pictures.count, thumbnail: pictures.first)
    }
}
