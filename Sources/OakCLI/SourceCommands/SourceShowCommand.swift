import Foundation
import OakModels

extension SourceCommands {
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
}
