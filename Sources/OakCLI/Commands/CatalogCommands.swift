import Foundation
import OakModels
import OakStore

/// `oak stats`, `oak export`.
public enum CatalogCommands {
    public static func stats(_ context: CommandContext) async throws {
        let stats = try await context.catalog.stats()
        try context.print(stats) { stats in
            var table = Table("WHAT", "COUNT")
            table.add("species (not hybrids)", String(stats.speciesCount))
            table.add("hybrids", String(stats.hybridCount))
            table.add("taxa", String(stats.taxaCount))
            table.add("sources", String(stats.sourceCount))
            table.add("sources' data (species-sources)", String(stats.speciesSources))
            table.add("notes (source 3)", String(stats.notes))
            return table.text
        }
    }

    /// Writes the export document to `file`, or to standard output.
    public static func export(_ context: CommandContext, to file: String?) async throws {
        let document = try await context.catalog.exportDocument()
        guard let file else { return context.output.write(String(decoding: document, as: UTF8.self) + "\n") }
        do {
            try document.write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            throw CLIError.failure("Cannot write \(file): \(error.localizedDescription)")
        }
        let count = (try? JSONDecoder().decode(ExportHead.self, from: document))?.metadata.speciesCount ?? 0
        context.errors.line("Exported \(count) species from the \(context.catalog.location) to \(file) (\(document.count) bytes).")
    }

    /// The part of an export read to report its size.
    private struct ExportHead: Decodable {
        var metadata: ExportMetadata
    }
}
