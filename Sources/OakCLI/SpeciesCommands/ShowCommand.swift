import Foundation
import OakModels

extension SpeciesCommands {
    /// A species with every source's data.
    public static func show(_ context: CommandContext, name: String) async throws {
        let full = try await context.catalog.speciesFull(named: name)
        try context.print(full) { full in
            let species = full.species
            var lines = ["Quercus \(species.scientificName)\(species.author.map { " \($0)" } ?? "")"]
            func add(_ label: String, _ value: String?) {
                if let value, !value.isEmpty { lines.append("  \(label.padding(toLength: 20, withPad: " ", startingAt: 0))\(value)") }
            }
            add("hybrid", species.isHybrid ? "yes (\([species.parent1, species.parent2].compactMap { $0 }.joined(separator: " × ")))" : nil)
            add("status", species.conservationStatus)
            add("taxonomy", [species.subgenus, species.section, species.subsection, species.complex].compactMap { $0 }.joined(separator: " > "))
            add("synonyms", species.synonyms.joined(separator: "; "))
            add("hybrids", species.hybrids.joined(separator: ", "))
            add("closely related to", species.closelyRelatedTo.joined(separator: ", "))
            add("subspecies/varieties", species.subspeciesVarieties.joined(separator: ", "))
            for data in full.sources {
                let record = data.record
                lines.append("")
                lines.append("[\(record.sourceId)] \(data.sourceName)\(record.isPreferred ? " (preferred)" : "")")
                add("local names", record.localNames.joined(separator: ", "))
                for (label, value) in SpeciesSource.describedFields(of: record) { add(label, value) }
            }
            return lines.joined(separator: "\n")
        }
    }
}

extension SpeciesSource {
    /// The descriptive fields of a row with their labels, in reading order.
    static func describedFields(of record: SpeciesSource) -> [(String, String?)] {
        [
            ("range", record.range), ("growth habit", record.growthHabit), ("leaves", record.leaves),
            ("flowers", record.flowers), ("fruits", record.fruits), ("bark", record.bark), ("twigs", record.twigs),
            ("buds", record.buds), ("hardiness/habitat", record.hardinessHabitat), ("miscellaneous", record.miscellaneous),
            ("url", record.url),
        ]
    }
}
