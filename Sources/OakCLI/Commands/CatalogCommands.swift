import Foundation
import OakModels
import OakStore

/// `oak stats`, `oak export`, `oak import`.
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

    /// Imports an export file (the original apps' `quercus_data.json`); see `SQLiteStore.importExport`.
    public static func importFile(_ context: CommandContext, path: String, dryRun: Bool) async throws {
        let file = try ExportFileReader.read(path)
        let bar = ProgressBar("Importing", stream: context.errors, enabled: context.interactive)
        let summary = try await context.catalog.importDocument(file, dryRun: dryRun) { done, total in
            bar.update(done: done, total: total)
        }
        for error in summary.errors { context.errors.line("error: \(path): \(error)") }
        let line = "created \(summary.created), updated \(summary.updated), unchanged \(summary.unchanged), skipped \(summary.skipped), errors \(summary.errors.count)"
        if context.format == .json { context.output.line(try CLIJSON.text(summary)) }
        if !summary.errors.isEmpty {
            throw CLIError.invalid("Nothing imported (\(line)): fix the records above and import again")
        }
        context.errors.line(dryRun ? "Dry run, nothing written: \(line)" : "Imported \(path) into the \(context.catalog.location): \(line)")
    }

    /// The part of an export read to report its size.
    private struct ExportHead: Decodable {
        var metadata: ExportMetadata
    }
}

/// Reads an export file, reporting a bad record with its place (`species[12].taxonomy`) and what is wrong.
public enum ExportFileReader {
    public static func read(_ path: String) throws -> ExportFile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError.usage("Cannot read \(path): \(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(ExportFile.self, from: data)
        } catch let error as DecodingError {
            throw CLIError.invalid("\(path) is not an export file: \(describe(error))")
        } catch {
            throw CLIError.invalid("\(path) is not an export file: \(error)")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func place(_ path: [any CodingKey]) -> String {
            let text = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : (text.isEmpty ? "the document" : text)
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(place(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context): return "\(place(context.codingPath)): expected \(type), found null"
        case .keyNotFound(let key, let context): return "\(place(context.codingPath + [key])): missing"
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return "\(place(context.codingPath)): \(underlying ?? context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
