import Foundation
import OakModels
import OakSync
import Observation

/// One species in a list.
public struct SpeciesRow: Hashable, Sendable, Identifiable {
    /// The stored name ("alba", "× bebbiana").
    public var name: String
    /// The full name, hybrids marked ×: "Quercus × bebbiana".
    public var title: String
    public var isHybrid: Bool
    public var author: String?
    /// Whether the species was created here and waits to be synced.
    public var isPending: Bool

    public var id: String { name }

    init(_ species: Species, pending: Bool) {
        name = species.scientificName
        let marked = species.isHybrid && !name.contains(Species.hybridSign) ? "\(Species.hybridSign) \(name)" : name
        title = Formatting.fullName(marked)
        isHybrid = species.isHybrid || name.contains(Species.hybridSign)
        author = species.author
        isPending = pending
    }
}

/// A group of the browser: the species of one subgenus and section.
public struct SpeciesGroup: Hashable, Sendable, Identifiable {
    /// "Quercus › Lobatae", or "Search results" while searching.
    public var title: String
    public var rows: [SpeciesRow]

    public var id: String { title }
}

/// The species browser: every species offline, grouped by subgenus and section; search as you type
/// (ranked as the server ranks it) shows one list of results.
@Observable @MainActor
public final class SpeciesBrowserModel {
    /// The search text; every change searches again.
    public var searchText = "" {
        didSet { if searchText != oldValue { scheduleSearch() } }
    }
    public private(set) var groups: [SpeciesGroup] = []
    /// How many species the catalog holds.
    public private(set) var speciesCount = 0
    private var catalog = CatalogSnapshot()
    private let store: LocalStore
    private var observing: Task<Void, Never>?
    private var searching: Task<Void, Never>?

    init(store: LocalStore) {
        self.store = store
    }

    /// Follows the catalog: the list updates after every pull or local change.
    func start() {
        guard observing == nil else { return }
        observing = store.observeCatalog().follow { [weak self] catalog in
            self?.catalog = catalog
            self?.scheduleSearch()
        }
    }

    /// Rebuilds the groups now (after `start`, changes arrive by themselves).
    public func refresh() async {
        if let catalog = try? await store.catalog() { self.catalog = catalog }
        await rebuild(query: searchText)
    }

    private func scheduleSearch() {
        searching?.cancel()
        let query = searchText
        searching = Task { [weak self] in await self?.rebuild(query: query) }
    }

    private func rebuild(query: String) async {
        let catalog = catalog
        speciesCount = catalog.species.count
        let row = { (species: Species) in SpeciesRow(species, pending: catalog.syncState(ofSpecies: species.scientificName) != .synced) }
        guard !SpeciesSearch(query: query).isEmpty else {
            groups = Self.grouped(catalog.species).map { SpeciesGroup(title: $0.title, rows: $0.species.map(row)) }
            return
        }
        guard let results = try? await store.searchSpecies(query, limit: 200), !Task.isCancelled else { return }
        groups = results.isEmpty ? [] : [SpeciesGroup(title: "Search results", rows: results.map(row))]
    }

    /// Species grouped by subgenus then section, each group by name; species without a place last.
    static func grouped(_ species: [Species]) -> [(title: String, species: [Species])] {
        let groups = Dictionary(grouping: species) { item -> String in
            switch (item.subgenus, item.section) {
            case (let subgenus?, let section?): "\(subgenus) › \(section)"
            case (let subgenus?, nil): subgenus
            case (nil, _): ""
            }
        }
        return groups.keys.sorted(by: Formatting.groupOrder).map { key in
            (key.isEmpty ? "Unplaced" : key, groups[key, default: []].sorted { $0.scientificName < $1.scientificName })
        }
    }
}
