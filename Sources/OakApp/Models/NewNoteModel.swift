import Foundation
import OakModels
import OakSync
import Observation

/// The new-note sheet: pick a species (autocomplete over the local catalog) and a source (personal
/// observation by default); or, for a species the catalog lacks, name it and place it in the taxonomy,
/// and it is created here and synced when online.
@Observable @MainActor
public final class NewNoteModel {
    /// The species search text; suggestions follow it.
    public var speciesQuery = "" {
        didSet { if speciesQuery != oldValue { suggest() } }
    }
    public private(set) var suggestions: [SpeciesRow] = []
    /// The species chosen from the suggestions.
    public var selectedSpecies: String?
    public var sourceID = Source.personalObservationID
    public private(set) var sources: [Source] = []

    /// The "species not in the catalog" path.
    public var isNewSpecies = false
    public var newSpeciesName = ""
    public var isHybrid = false
    public var subgenus: String? {
        didSet { if subgenus != oldValue { section = nil } }
    }
    public var section: String? {
        didSet { if section != oldValue { subsection = nil } }
    }
    public var subsection: String? {
        didSet { if subsection != oldValue { complex = nil } }
    }
    public var complex: String?

    /// Why the last attempt to create failed.
    public private(set) var errorMessage: String?
    private var catalog = CatalogSnapshot()
    private let store: LocalStore
    private let notes: NotesRepository
    private let offlineCatalog: OfflineCatalog
    private var suggesting: Task<Void, Never>?

    init(store: LocalStore, notes: NotesRepository, catalog: OfflineCatalog, species: String?) {
        self.store = store
        self.notes = notes
        offlineCatalog = catalog
        selectedSpecies = species.map(Species.normalizedName)
    }

    /// Reads the catalog (sources and taxonomy for the pickers).
    public func load() async {
        catalog = (try? await store.catalog()) ?? CatalogSnapshot()
        sources = catalog.sources
    }

    // MARK: Taxonomy pickers

    /// The subgenera to pick from: the catalog's taxa and the species' own placements.
    public var subgenusOptions: [String] { options(.subgenus, parent: nil) }
    /// The sections of the chosen subgenus.
    public var sectionOptions: [String] { subgenus.map { options(.section, parent: $0) } ?? [] }
    /// The subsections of the chosen section.
    public var subsectionOptions: [String] { section.map { options(.subsection, parent: $0) } ?? [] }
    /// The complexes of the chosen subsection.
    public var complexOptions: [String] { subsection.map { options(.complex, parent: $0) } ?? [] }

    private func options(_ level: TaxonLevel, parent: String?) -> [String] {
        var names = Set(catalog.taxa.filter { $0.level == level && (parent == nil || $0.parent == parent) }.map(\.name))
        for species in catalog.species {
            let path = [species.subgenus, species.section, species.subsection, species.complex]
            let depth = level.depth
            guard let name = path[depth], parent == nil || (depth > 0 && path[depth - 1] == parent) else { continue }
            names.insert(name)
        }
        return names.sorted()
    }

    // MARK: Create

    /// Whether the form names a species and a source.
    public var canCreate: Bool {
        isNewSpecies ? !newSpeciesName.trimmingCharacters(in: .whitespaces).isEmpty : selectedSpecies != nil
    }

    /// Creates the note (and the species first, on the new-species path); returns its id for the editor, or, when
    /// the species already has a note from that source, that note's id (a person keeps one note per species and
    /// source: it opens to be added to); nil with `errorMessage` set when neither can be.
    public func create() async -> UUID? {
        errorMessage = nil
        do {
            var name = selectedSpecies
            if isNewSpecies {
                var patch = SpeciesPatch()
                patch.scientificName = .value(newSpeciesName)
                patch.isHybrid = .value(isHybrid)
                patch.subgenus = subgenus.map(Patch.value) ?? .absent
                patch.section = section.map(Patch.value) ?? .absent
                patch.subsection = subsection.map(Patch.value) ?? .absent
                patch.complex = complex.map(Patch.value) ?? .absent
                name = try await offlineCatalog.createSpecies(patch).scientificName
            }
            guard let name else {
                errorMessage = "Choose a species."
                return nil
            }
            return try await notes.create(scientificName: name, sourceId: sourceID, fields: NoteFields()).id
        } catch let error as OakError where error.code == .conflict {
            guard case .string(let existing)? = error.details?["id"], let id = UUID(wireString: existing) else {
                errorMessage = error.summary
                return nil
            }
            return id
        } catch let error as OakError {
            errorMessage = error.summary
        } catch {
            errorMessage = "\(error)"
        }
        return nil
    }

    private func suggest() {
        suggesting?.cancel()
        let query = speciesQuery
        suggesting = Task { [weak self, store, catalog] in
            guard let results = try? await store.searchSpecies(query, limit: 20), !Task.isCancelled else { return }
            self?.suggestions = results.map { SpeciesRow($0, pending: catalog.syncState(ofSpecies: $0.scientificName) != .synced) }
        }
    }
}
