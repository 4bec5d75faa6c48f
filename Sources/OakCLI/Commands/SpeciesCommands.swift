import Foundation
import OakModels

/// `oak find`, `oak show`, `oak delete`: species.
public enum SpeciesCommands {
    /// What `find` searches.
    public enum FindScope: String, CaseIterable, Sendable {
        case oak, source, both
    }

    /// Species (and, with `source` or `both`, sources) matching `query`; `idOnly` prints names (or ids) alone.
    public static func find(_ context: CommandContext, query: String, scope: FindScope, limit: Int, idOnly: Bool) async throws {
        let result = try await context.catalog.search(query: query, limit: limit)
        let species = scope == .source ? [] : result.species
        let sources = scope == .oak ? [] : result.sources
        if idOnly {
            for item in species { context.output.line(item.scientificName) }
            for item in sources { context.output.line(String(item.id)) }
            return
        }
        struct Found: Encodable {
            var species: [Species]
            var sources: [Source]
        }
        try context.print(Found(species: species, sources: sources)) { found in
            var lines: [String] = []
            if !found.species.isEmpty {
                var table = Table("NAME", "AUTHOR", "SUBGENUS", "SECTION", "STATUS")
                for item in found.species {
                    table.add(
                        item.scientificName, item.author ?? "", item.subgenus ?? "", item.section ?? "", item.conservationStatus ?? "")
                }
                lines.append(table.text)
            }
            if !found.sources.isEmpty {
                var table = Table("ID", "SOURCE", "TYPE")
                for item in found.sources { table.add(String(item.id), item.name, item.sourceType) }
                lines.append(table.text)
            }
            return lines.isEmpty ? "Nothing matches '\(query)'." : lines.joined(separator: "\n\n")
        }
    }

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

    /// Deletes a species with its sources' data, once confirmed (see `Confirmation`).
    public static func delete(_ context: CommandContext, name: String, confirmation: Confirmation) async throws {
        let species = try await context.catalog.species(named: name)
        try confirmation.require("Delete Quercus \(species.scientificName) and all of its sources' data from the \(context.catalog.location)?")
        try await context.catalog.deleteSpecies(named: species.scientificName)
        context.errors.line("Deleted \(species.scientificName).")
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

/// Whether a destructive command may go ahead: `--force`, or a "y" typed at a terminal. Without a terminal
/// and without `--force`, it refuses (a script never deletes by accident).
public struct Confirmation: Sendable {
    public var force: Bool
    public var prompt: OutputStream
    /// Reads the answer; nil when standard input is not a terminal.
    public var answer: @Sendable () -> String?

    public init(force: Bool, prompt: OutputStream = .standardError, answer: @escaping @Sendable () -> String? = Confirmation.terminalAnswer) {
        self.force = force
        self.prompt = prompt
        self.answer = answer
    }

    public static let terminalAnswer: @Sendable () -> String? = {
        isatty(STDIN_FILENO) == 1 ? readLine() : nil
    }

    func require(_ question: String) throws {
        guard !force else { return }
        prompt.write("\(question) [y/N] ")
        guard let reply = answer() else {
            prompt.line()
            throw CLIError.usage("Not a terminal: add --force to delete without asking")
        }
        guard ["y", "yes"].contains(reply.trimmingCharacters(in: .whitespaces).lowercased()) else {
            throw CLIError.failure("Nothing deleted.")
        }
    }
}
