import Foundation
import Observation

/// Where the user is: the tab, each tab's stack, and the sheet on top.
@Observable @MainActor
public final class Navigation {
    public enum Tab: Hashable, Sendable, CaseIterable {
        case species, notes, sources, settings
    }

    /// A screen pushed on a tab's stack.
    public enum Route: Hashable, Sendable {
        case species(String)
        case note(UUID)
    }

    /// A sheet over the tabs.
    public enum Sheet: Hashable, Sendable, Identifiable {
        /// A new note, for a species when one is known.
        case newNote(species: String?)
        /// The source form: a new source, or the source with this id.
        case sourceForm(id: Int?)

        public var id: Self { self }
    }

    public var tab: Tab = .species
    public var speciesPath: [Route] = []
    public var notesPath: [Route] = []
    public var sheet: Sheet?

    public init() {}

    /// The species list's selection where the list and the page stand side by side (iPad, regular width): the first
    /// screen of the species stack, which the detail column shows; choosing another replaces the whole stack.
    public var speciesSelection: Route? {
        get { speciesPath.first }
        set { speciesPath = newValue.map { [$0] } ?? [] }
    }

    /// The notes list's selection, as `speciesSelection` is the species list's.
    public var notesSelection: Route? {
        get { notesPath.first }
        set { notesPath = newValue.map { [$0] } ?? [] }
    }

    /// Shows a species' page on the species tab.
    public func showSpecies(_ name: String) {
        tab = .species
        speciesPath.append(.species(name))
    }

    /// Opens a note in the editor on the notes tab.
    public func showNote(_ id: UUID) {
        tab = .notes
        notesPath = [.note(id)]
    }
}
