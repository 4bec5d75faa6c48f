import Foundation
import GRDB
import OakModels
import OakStore
import OakStoreKit
import OakStoreSQLite

/// The size of a synthetic database for benchmarks: totals to fill up to, not amounts to add.
public struct SyntheticLoad: Sendable {
    /// Species in all, the starter dataset's included.
    public var species: Int
    /// Rows of the reference sources (1 iNaturalist, 2 Oaks of the World).
    public var speciesSources: Int
    /// Rows of personal sources: source 3 first, then as many extra "observer" sources as needed.
    public var notes: Int

    public init(species: Int = 734, speciesSources: Int = 600, notes: Int = 10_000) {
        self.species = species
        self.speciesSources = speciesSources
        self.notes = notes
    }
}

/// What a synthetic load added.
public struct SyntheticLoadSummary: Sendable {
    public var speciesAdded = 0
    public var speciesSourcesAdded = 0
    public var notesAdded = 0
    public var sourcesAdded = 0
}

extension SQLiteStore {
    /// Fills the database up to `load` with plausible, deterministic synthetic data, in one transaction.
    /// Rows go in through the normal tables, so the change-log and search triggers see every one.
    public func addSyntheticLoad(_ load: SyntheticLoad) async throws -> SyntheticLoadSummary {
        try await write { db in
            var generator = SyntheticGenerator()
            var summary = SyntheticLoadSummary()
            let sections = try Row.fetchAll(db, sql: "SELECT name, parent FROM taxa WHERE level = 'section' ORDER BY name")
                .map { (section: $0["name"] as String, subgenus: $0["parent"] as String?) }
            var names = Set(try String.fetchAll(db, sql: "SELECT scientific_name FROM oak_entries"))
            while names.count < load.species {
                let name = generator.speciesName()
                guard names.insert(name).inserted else { continue }
                let placement = sections.isEmpty ? nil : sections[generator.next(sections.count)]
                let species = Species(
                    scientificName: name, author: generator.pick(SyntheticGenerator.authors), isHybrid: false,
                    conservationStatus: generator.pick(["LC", "LC", "LC", "NT", "VU", "EN", "DD"]),
                    subgenus: placement?.subgenus, section: placement?.section,
                    synonyms: generator.next(3) == 0 ? ["Quercus \(generator.speciesName()) \(generator.pick(SyntheticGenerator.authors))"] : [])
                try db.insert(into: "oak_entries", species.columnValues)
                summary.speciesAdded += 1
            }
            let speciesList = names.sorted()
            var taken = Set(
                try Row.fetchAll(db, sql: "SELECT scientific_name, source_id FROM species_sources").map {
                    "\($0["scientific_name"] as String)/\($0["source_id"] as Int)"
                })
            /// Inserts rows of `sources` (in order) for species without one, until `count` rows of those sources exist.
            func fill(_ sources: [Int], upTo count: Int) throws -> Int {
                let placeholders = sources.map(String.init).joined(separator: ",")
                var existing = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM species_sources WHERE source_id IN (\(placeholders))") ?? 0
                var added = 0
                for sourceId in sources {
                    for name in speciesList where existing < count && taken.insert("\(name)/\(sourceId)").inserted {
                        var record = generator.speciesSource(name, sourceId: sourceId, serial: taken.count)
                        record.isPreferred = sourceId == Source.personalObservationID
                        var values = record.columnValues
                        values["id"] = nil
                        try db.insert(into: "species_sources", values)
                        existing += 1
                        added += 1
                    }
                }
                return added
            }
            summary.speciesSourcesAdded = try fill([Source.iNaturalistID, Source.oaksOfTheWorldID], upTo: load.speciesSources)

            var personal =
                [Source.personalObservationID]
                + (try Int.fetchAll(
                    db, sql: "SELECT id FROM sources WHERE source_type = 'Personal Observation' AND id <> ? ORDER BY id",
                    arguments: [Source.personalObservationID]))
            let sourcesNeeded = speciesList.isEmpty ? 0 : (load.notes + speciesList.count - 1) / speciesList.count
            while personal.count < sourcesNeeded {
                let source = Source(
                    id: 0, sourceType: "Personal Observation", name: "Observer \(personal.count)",
                    description: "Field observations of a synthetic observer (benchmark data)")
                try db.insert(into: "sources", source.columnValues)
                personal.append(Int(db.lastInsertedRowID))
                summary.sourcesAdded += 1
            }
            summary.notesAdded = try fill(personal, upTo: load.notes)
            return summary
        }
    }
}

/// Deterministic synthetic names and descriptions (a fixed-seed SplitMix64), so every run builds the same data.
struct SyntheticGenerator {
    private var state: UInt64 = 0x5EED_0A4C_0DE5

    static let authors = ["L.", "Michx.", "Trel.", "Nutt.", "Engelm.", "Liebm.", "C.H.Mull.", "Benth.", "Sarg.", "Blume"]
    private static let stems = [
        "acer", "alb", "arizon", "aur", "borea", "calif", "cinere", "crass", "dens", "durat", "elong", "falc", "ferrug",
        "glauc", "grand", "hirt", "humil", "lanat", "laur", "lept", "lyrat", "macr", "mont", "nigr", "oblong", "oleo",
        "pallid", "parv", "pung", "rigid", "robust", "rugos", "sessil", "sinu", "tomentel", "undul", "velut", "virid",
    ]
    private static let endings = ["a", "ata", "ensis", "ifolia", "iana", "oides", "ica", "ina", "osa", "ella", "ula"]
    private static let adjectives = [
        "White", "Red", "Black", "Swamp", "Chestnut", "Live", "Scrub", "Post", "Valley", "Blue", "Silver", "Mountain",
        "Sand", "Willow", "Shingle", "Cork", "Golden", "Canyon",
    ]
    private static let words = [
        "lobes", "shallow", "deep", "glossy", "pale", "grey", "scaly", "furrowed", "ridged", "acorn", "cup", "fringed",
        "warty", "slender", "stout", "twig", "hairy", "smooth", "margin", "toothed", "bristle", "tipped", "evergreen",
        "deciduous", "crown", "spreading", "upright", "slope", "riparian", "limestone", "granite", "dry", "moist",
        "ridge", "understory", "canopy", "autumn", "crimson", "bronze", "buds", "clustered", "ovoid", "rounded",
    ]

    /// A number in 0..<bound.
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }

    mutating func pick<T>(_ list: [T]) -> T { list[next(list.count)] }

    /// A Latin-looking epithet such as "glaucifolia" or "montoides".
    mutating func speciesName() -> String {
        pick(Self.stems) + (next(4) == 0 ? pick(Self.stems) : "") + pick(Self.endings)
    }

    /// A sentence of `count` words.
    mutating func sentence(_ count: Int) -> String {
        let text = (0..<count).map { _ in pick(Self.words) }.joined(separator: " ")
        return text.prefix(1).uppercased() + text.dropFirst() + "."
    }

    /// A version-4 UUID from the generator.
    mutating func uuid() -> UUID {
        var bytes = (0..<16).map { _ in UInt8(next(256)) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// A filled-in description of `name` by `sourceId`, stamped at a fixed date plus `serial` minutes.
    mutating func speciesSource(_ name: String, sourceId: Int, serial: Int) -> SpeciesSource {
        let time = Date(timeIntervalSince1970: 1_735_689_600 + Double(serial) * 60)
        return SpeciesSource(
            uuid: uuid(), scientificName: name, sourceId: sourceId,
            localNames: ["\(pick(Self.adjectives)) oak"] + (next(2) == 0 ? ["\(pick(Self.adjectives)) \(name) oak"] : []),
            range: sentence(8), growthHabit: sentence(6), leaves: sentence(14), fruits: sentence(10), bark: sentence(8),
            twigs: sentence(5), buds: sentence(4), miscellaneous: sentence(20), createdAt: time, updatedAt: time)
    }
}
