import Foundation
import OakModels
import OakStore

extension DataCommands {
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
