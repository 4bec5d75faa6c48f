import ArgumentParser
import Foundation
import OakModels
import OakStore
import OakStoreKit

/// `oak-bench export-rebuild`: times, in process, the export rebuilt after a write (one note edited; the
/// cached export is invalidated and rebuilt from the previous one) and built from nothing (a newly opened store).
struct BenchExportRebuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-rebuild",
        abstract: "Time rebuilds of the export document (edits one note); prints JSON with medians in milliseconds."
    )

    @OptionGroup var database: BenchDatabaseOptions

    @Option(help: "How many rebuilds of each kind to time.")
    var runs = 20

    func run() async throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        var cold: [Double] = []
        var bytes = 0
        for _ in 0..<runs {
            let store = try database.open()
            cold.append(try await milliseconds { bytes = try await store.export().body.readableBytes })
            try store.close()
        }
        let store = try database.open()
        defer { try? store.close() }
        _ = try await store.export()
        guard let note = try await store.notes(species: nil, sourceId: Source.personalObservationID).first else {
            throw ValidationError("the database has no notes to edit; run `oak-bench seed` first")
        }
        var afterWrite: [Double] = []
        for run in 0..<runs {
            let fields = try JSONDecoder().decode(NoteFieldsPatch.self, from: Data(#"{"fieldNotes": "benchmark edit \#(run)"}"#.utf8))
            _ = try await store.updateNote(id: note.id, with: NoteInput(fields: fields), expectedVersion: nil)
            afterWrite.append(try await milliseconds { _ = try await store.export() })
        }
        say(#"{"runs": \#(runs), "median_ms": \#(median(afterWrite)), "cold_ms": \#(median(cold)), "bytes": \#(bytes)}"#)
    }
}
