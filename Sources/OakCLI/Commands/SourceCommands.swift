import Foundation
import OakModels

/// `oak source list|show|delete`.
public enum SourceCommands {
    public static func list(_ context: CommandContext) async throws {
        let sources = try await context.catalog.listSources()
        try context.print(sources) { sources in
            var table = Table("ID", "NAME", "TYPE", "LICENSE", "SPECIES")
            for source in sources {
                table.add(String(source.id), source.name, source.sourceType, source.license ?? "", String(source.speciesCount ?? 0))
            }
            return table.text
        }
    }

    public static func show(_ context: CommandContext, id: Int) async throws {
        let source = try await context.catalog.source(id: id)
        try context.print(source) { source in
            var lines = ["[\(source.id)] \(source.name) (\(source.sourceType))"]
            let fields: [(String, String?)] = [
                ("description", source.description), ("author", source.author), ("year", source.year.map(String.init)),
                ("url", source.url), ("isbn", source.isbn), ("doi", source.doi), ("license", source.license),
                ("license url", source.licenseURL), ("notes", source.notes), ("species", source.speciesCount.map(String.init)),
            ]
            for case (let label, let value?) in fields { lines.append("  \(label.padding(toLength: 12, withPad: " ", startingAt: 0))\(value)") }
            return lines.joined(separator: "\n")
        }
    }

    public static func delete(_ context: CommandContext, id: Int, confirmation: Confirmation) async throws {
        let source = try await context.catalog.source(id: id)
        try confirmation.require("Delete source \(id) (\(source.name)) from the \(context.catalog.location)?")
        try await context.catalog.deleteSource(id: id)
        context.errors.line("Deleted source \(id).")
    }
}
