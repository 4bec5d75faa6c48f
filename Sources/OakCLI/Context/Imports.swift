import Foundation
import OakModels
import OakStore
import OakStoreSQLite

/// What `oak import`, `oak import-bulk` and `oak taxa import` share: files loaded into a database file in one
/// transaction, with a progress bar and a summary.
enum Imports {
    /// Imports change a database file in one transaction; a server has no such operation.
    static func database(_ context: CommandContext, for command: String) throws -> SQLiteStore {
        guard let store = context.catalog as? SQLiteStore else {
            throw CLIError.usage("\(command) works on a database file, not through a server: run it with --local -d PATH on the server's database")
        }
        return store
    }

    static func run(
        _ context: CommandContext, _ label: String, _ body: (@escaping @Sendable (Int, Int) -> Void) async throws -> ImportSummary
    ) async throws -> ImportSummary {
        let bar = ProgressBar(label, stream: context.errors, enabled: context.interactive)
        return try await body { done, total in bar.update(done: done, total: total) }
    }

    /// Prints each error and caveat with the file's name, then the summary line; errors mean nothing was written.
    static func report(_ context: CommandContext, _ summary: ImportSummary, path: String, dryRun: Bool) throws {
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
