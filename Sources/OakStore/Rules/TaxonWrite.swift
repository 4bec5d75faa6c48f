import OakModels

/// Where a taxon is found: its level and name, which never change.
package struct TaxonKey: Hashable, Sendable {
    package var level: TaxonLevel
    package var name: String

    package init(_ level: TaxonLevel, _ name: String) {
        self.level = level
        self.name = name
    }
}

/// The rule of a taxon's create and update, over what a backend read: a taxon is one of a kind by level and name
/// (409), and the parent it names must exist one level up (400 naming `parent`). An update checks the parent only
/// when it names one, so a taxon whose parent went away can still be edited otherwise.
package struct TaxonWrite: Sendable {
    /// The taxon to write, once `checked`.
    package let taxon: Taxon
    /// The parent the backend reads before `checked`: nil when there is none to check.
    package let parentToFind: TaxonKey?

    /// A create: the taxon the body describes (a 400 naming any invalid field).
    package static func create(_ patch: TaxonPatch) throws -> TaxonWrite {
        let taxon = try Taxon(creating: patch)
        return TaxonWrite(taxon: taxon, parentToFind: taxon.namedParent)
    }

    /// An update: `current` with the body applied (a 400 naming any invalid field).
    package static func update(_ current: Taxon, with patch: TaxonPatch) throws -> TaxonWrite {
        var taxon = current
        try taxon.apply(patch)
        return TaxonWrite(taxon: taxon, parentToFind: patch.parent.isPresent ? taxon.namedParent : nil)
    }

    /// The taxon to write, given whether another is stored under its level and name (`alreadyExists`, for a
    /// create) and the parent read at `parentToFind` (nil when none is stored there).
    package func checked(alreadyExists: Bool = false, parent: Taxon?) throws -> Taxon {
        if alreadyExists { throw OakError(.conflict, "Taxon \(taxon.level.rawValue) '\(taxon.name)' already exists") }
        if let parentToFind, parent == nil {
            throw OakError.unknownReference("parent", "no \(parentToFind.level.rawValue) named '\(parentToFind.name)' exists")
        }
        return taxon
    }
}

extension Taxon {
    /// Where the taxon is found.
    package var key: TaxonKey { TaxonKey(level, name) }

    /// The parent the taxon names, one level up; nil when it names none or has no level above.
    package var namedParent: TaxonKey? {
        guard let parent, let parentLevel = level.parentLevel else { return nil }
        return TaxonKey(parentLevel, parent)
    }
}
