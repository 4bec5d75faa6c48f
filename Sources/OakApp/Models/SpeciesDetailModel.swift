import Foundation
import OakModels
import OakSync
import Observation

/// One source's data on a species' page.
public struct SourceEntry: Hashable, Sendable, Identifiable {
    public var sourceId: Int
    public var sourceName: String
    public var license: String?
    public var licenseURL: String?
    /// Whether this is the user's own note (personal observation), shown first.
    public var isOwnNote: Bool
    public var isPreferred: Bool
    /// The note's id (the editor opens it).
    public var noteID: UUID
    /// Label and markdown text of each field that has text, in the apps' order.
    public var fields: [LabeledText]
    public var syncState: NoteRowState

    public var id: Int { sourceId }
}

/// A label and its text (markdown).
public struct LabeledText: Hashable, Sendable, Identifiable {
    public var label: String
    public var markdown: String

    public var id: String { label }
}

/// An external link on a species' page.
public struct ExternalLink: Hashable, Sendable, Identifiable {
    public var title: String
    public var url: URL

    public var id: URL { url }
}

/// A species' page: its place in the taxonomy, its relatives, links, and every source's data with
/// the source's name and license, the user's own note first.
@Observable @MainActor
public final class SpeciesDetailModel {
    public let name: String
    public private(set) var species: Species?
    /// "Quercus › Quercus › Albae › alba": genus, subgenus, section, subsection, complex, species.
    public private(set) var taxonomyPath: [String] = []
    /// A hybrid's parents (full names).
    public private(set) var parents: [String] = []
    public private(set) var synonyms: [String] = []
    /// Closely related species and known hybrids (stored names, for navigation).
    public private(set) var related: [String] = []
    public private(set) var hybrids: [String] = []
    public private(set) var links: [ExternalLink] = []
    public private(set) var entries: [SourceEntry] = []
    /// Whether the user has a note on this species.
    public var hasOwnNote: Bool { entries.first?.isOwnNote == true }
    private let store: LocalStore
    private var observing: [Task<Void, Never>] = []
    private var catalog = CatalogSnapshot()
    private var data: [LocalNote] = []

    init(name: String, store: LocalStore) {
        self.name = Species.normalizedName(name)
        self.store = store
    }

    /// Loads the page and follows changes (a pull, an edit of the note).
    public func start() {
        guard observing.isEmpty else { return }
        observing = [
            store.observeCatalog().follow { [weak self] catalog in
                self?.catalog = catalog
                self?.rebuild()
            },
            store.observeSourceData(of: name).follow { [weak self] data in
                self?.data = data
                self?.rebuild()
            },
        ]
    }

    /// Stops following changes (the page closed).
    public func stop() {
        observing.forEach { $0.cancel() }
        observing = []
    }

    private func rebuild() {
        guard let species = catalog.species(named: name) else { return }
        self.species = species
        taxonomyPath =
            ["Quercus"] + [species.subgenus, species.section, species.subsection, species.complex].compactMap { $0 }
            + [species.scientificName]
        parents = [species.parent1, species.parent2].compactMap { $0 }.map(Formatting.fullName)
        synonyms = species.synonyms
        related = species.closelyRelatedTo
        hybrids = species.hybrids
        links = species.externalLinks.compactMap(Self.link)
        entries = data.map { note in
            let source = catalog.source(id: note.sourceId)
            return SourceEntry(
                sourceId: note.sourceId, sourceName: source?.name ?? "Source \(note.sourceId)", license: source?.license,
                licenseURL: source?.licenseURL, isOwnNote: note.sourceId == Source.personalObservationID,
                isPreferred: note.reference.isPreferred, noteID: note.id, fields: Self.fields(of: note), syncState: NoteRowState(note))
        }.sorted { ($0.isOwnNote ? 0 : 1, $0.isPreferred ? 0 : 1, $0.sourceId) < ($1.isOwnNote ? 0 : 1, $1.isPreferred ? 0 : 1, $1.sourceId) }
    }

    /// Every field with text, note fields first, then the source's reference data.
    static func fields(of note: LocalNote) -> [LabeledText] {
        let noteFields = NoteFields.Field.allCases.compactMap { field in
            note.fields[field].flatMap { $0.isEmpty ? nil : LabeledText(label: field.label, markdown: $0) }
        }
        let reference = [("Flowers", note.reference.flowers), ("Hardiness & habitat", note.reference.hardinessHabitat)]
            .compactMap { label, text in text.flatMap { $0.isEmpty ? nil : LabeledText(label: label, markdown: $0) } }
        return noteFields + reference
    }

    /// A link from an `external_links` entry: an object with a URL (and a name or label), or a URL string.
    static func link(_ value: JSONValue) -> ExternalLink? {
        switch value {
        case .string(let text):
            return URL(string: text).map { ExternalLink(title: $0.host ?? text, url: $0) }
        case .object(let object):
            guard case .string(let text)? = object["url"], let url = URL(string: text) else { return nil }
            let title = ["name", "label", "title"].lazy.compactMap { key -> String? in
                if case .string(let title)? = object[key] { return title }
                return nil
            }.first
            return ExternalLink(title: title ?? url.host ?? text, url: url)
        default:
            return nil
        }
    }
}
