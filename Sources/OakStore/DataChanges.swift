import OakModels

/// What changed in the data after a change-log position, sorted by what answers depend on: the read cache
/// drops only the answers a change can alter (see `ResponseCache`), not all of them on every write.
public struct DataChanges: Sendable, Equatable {
    /// The change-log position these changes run up to.
    public var head: Int64
    /// The listing version (see `SQLiteStore.listingVersion`).
    public var listingVersion: Int64
    /// Too much or too old to say: treat everything as changed.
    public var everything = false
    /// Species whose own row changed, by bare name (`DataChanges.bareName`).
    public var species: Set<String> = []
    /// Species whose notes or other source rows changed, by bare name.
    public var speciesWithChangedRows: Set<String> = []
    /// A source row changed whose species is no longer known (it was deleted).
    public var unknownRows = false
    public var taxa = false
    public var sources = false

    public init(
        head: Int64, listingVersion: Int64, everything: Bool = false, species: Set<String> = [],
        speciesWithChangedRows: Set<String> = [], unknownRows: Bool = false, taxa: Bool = false, sources: Bool = false
    ) {
        self.head = head
        self.listingVersion = listingVersion
        self.everything = everything
        self.species = species
        self.speciesWithChangedRows = speciesWithChangedRows
        self.unknownRows = unknownRows
        self.taxa = taxa
        self.sources = sources
    }

    /// Whether anything changed at all.
    public var isEmpty: Bool {
        !everything && species.isEmpty && speciesWithChangedRows.isEmpty && !unknownRows && !taxa && !sources
    }

    /// A species name without its hybrid sign, so the names a route accepts for one species ("× bebbiana",
    /// "x bebbiana", "bebbiana") all have the same key.
    public static func bareName(_ name: String) -> String {
        let normalized = Species.normalizedName(name)
        return normalized.hasPrefix(Species.hybridSign + " ") ? String(normalized.dropFirst(2)) : normalized
    }

    /// Adds a change-log entry: its entity, its key and, for a note, the species its row belongs to now (nil
    /// when the row is gone).
    package mutating func add(entity: String, key: String, rowSpecies: String?) {
        switch SyncEntity(rawValue: entity) {
        case .species: species.insert(Self.bareName(key))
        case .notes:
            if let rowSpecies {
                speciesWithChangedRows.insert(Self.bareName(rowSpecies))
            } else {
                unknownRows = true
            }
        case .taxa: taxa = true
        case .sources: sources = true
        case nil: everything = true
        }
    }

}
