import Foundation
import OakModels
import OakStore
import OakStoreSQLite

/// `oak import`, `oak import-bulk`, `oak taxa import`: files loaded into a database file in one transaction.
public enum ImportCommands {
    /// Imports an export file (the original apps' `quercus_data.json`); see `SQLiteStore.importExport`.
    public static func importExport(_ context: CommandContext, path: String, dryRun: Bool) async throws {
        let store = try database(context, for: "import")
        let file = try RecordFile.decode(ExportFile.self, path: path, what: "an export file")
        let summary = try await run(context, "Importing") { progress in try await store.importExport(file, dryRun: dryRun, progress: progress) }
        try report(context, summary, path: path, dryRun: dryRun)
    }

    /// Imports species records (YAML or JSON: a list of species as the API spells them) from one source.
    public static func importBulk(
        _ context: CommandContext, path: String, sourceId: Int, policy: BulkConflictPolicy, dryRun: Bool
    ) async throws {
        let store = try database(context, for: "import-bulk")
        let entries = try RecordFile.decode([SpeciesPatch].self, path: path, what: "a list of species records")
        context.errors.line("Found \(entries.count) species record(s) in \(path).")
        let summary = try await run(context, "Importing") { progress in
            try await store.importBulk(entries, sourceId: sourceId, onConflict: policy, dryRun: dryRun, progress: progress)
        }
        try report(context, summary, path: path, dryRun: dryRun)
    }

    /// The taxa file format: a list per level, each taxon with name, parent, author, notes and links.
    struct TaxaFile: Decodable {
        var subgenera: [TaxonPatch]?
        var sections: [TaxonPatch]?
        var subsections: [TaxonPatch]?
        var complexes: [TaxonPatch]?
    }

    /// Imports a taxa file (YAML): new taxa are created, changed ones updated, parents before children.
    public static func importTaxa(_ context: CommandContext, path: String, dryRun: Bool) async throws {
        let store = try database(context, for: "taxa import")
        let file = try RecordFile.decode(TaxaFile.self, path: path, what: "a taxa file (subgenera, sections, subsections, complexes)")
        let groups: [(level: TaxonLevel, records: [TaxonPatch])] = [
            (.subgenus, file.subgenera ?? []), (.section, file.sections ?? []), (.subsection, file.subsections ?? []),
            (.complex, file.complexes ?? []),
        ]
        let summary = try await run(context, "Importing taxa") { progress in try await store.importTaxa(groups, dryRun: dryRun, progress: progress) }
        try report(context, summary, path: path, dryRun: dryRun)
    }

    // MARK: Shared

    /// Imports change a database file in one transaction; a server has no such operation.
    private static func database(_ context: CommandContext, for command: String) throws -> SQLiteStore {
        guard let store = context.catalog as? SQLiteStore else {
            throw CLIError.usage("\(command) works on a database file, not through a server: run it with --local -d PATH on the server's database")
        }
        return store
    }

    private static func run(
        _ context: CommandContext, _ label: String, _ body: (@escaping @Sendable (Int, Int) -> Void) async throws -> ImportSummary
    ) async throws -> ImportSummary {
        let bar = ProgressBar(label, stream: context.errors, enabled: context.interactive)
        return try await body { done, total in bar.update(done: done, total: total) }
    }

    /// Prints each error and caveat with the file's name, then the summary line; errors mean nothing was written.
    private static func report(_ context: CommandContext, _ summary: ImportSummary, path: String, dryRun: Bool) throws {
        for error in summary.errors { context.errors.line("error: \(path): \(error)") }
        for warning in summary.warnings { context.errors.line("warning: \(path): \(warning)") }
        let line =
            "created \(summary.created), updated \(summary.updated), unchanged \(summary.unchanged), skipped \(summary.skipped), errors \(summary.errors.count)"
        if context.format == .json { context.output.line(try CLIJSON.text(summary)) }
        if !summary.errors.isEmpty {
            throw CLIError.invalid("Nothing imported (\(line)): fix the records above and import again")
        }
        context.errors.line(dryRun ? "Dry run, nothing written: \(line)" : "Imported \(path) into the \(context.catalog.location): \(line)")
    }
}

/// Reads a JSON or YAML file of records, reporting a bad record with its place (`species[12].taxonomy`) and what is wrong.
public enum RecordFile {
    public static func decode<T: Decodable>(_ type: T.Type, path: String, what: String) throws -> T {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError.usage("Cannot read \(path): \(error.localizedDescription)")
        }
        let isYAML = ["yaml", "yml"].contains(URL(fileURLWithPath: path).pathExtension.lowercased())
        do {
            let json = isYAML ? try YAMLDocument.anyJSON(String(decoding: data, as: UTF8.self)) : data
            return try JSONDecoder().decode(T.self, from: json)
        } catch let error as DecodingError {
            throw CLIError.invalid("\(path) is not \(what): \(DecodingErrors.describe(error))")
        } catch let error as CLIError {
            throw CLIError.invalid("\(path) is not \(what): \(error.description)")
        } catch {
            throw CLIError.invalid("\(path) is not \(what): \((error as NSError).localizedDescription)")
        }
    }
}
