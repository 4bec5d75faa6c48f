import ArgumentParser
import Foundation
import OakModels
import OakStore
import Testing

@testable import oak

@Suite("oak token and oak backup")
struct CLICommandTests {
    func temporaryDatabase() -> (directory: URL, path: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("oak-cli-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory, directory.appendingPathComponent("oak.db").path)
    }

    @Test("oak token create stores a hashed token with its abilities; list and revoke work on it")
    func tokenLifecycle() async throws {
        let (_, path) = temporaryDatabase()
        try await TokenCreateCommand.parse(["--db", path, "--name", "ipad", "--abilities", "notes:write,species:write"]).run()
        let store = try SQLiteStore(path: path)
        #expect(try await store.listTokens().map(\.name) == ["ipad"])
        #expect(try await store.listTokens().first?.abilities == [.notesWrite, .speciesWrite])
        try await TokenListCommand.parse(["--db", path]).run()
        try await TokenRevokeCommand.parse(["--db", path, "ipad"]).run()
        #expect(try await store.listTokens().isEmpty)
    }

    @Test("oak token rejects unknown abilities and unknown names with a clear error")
    func tokenErrors() async throws {
        let (_, path) = temporaryDatabase()
        await #expect(throws: ValidationError.self) {
            try await TokenCreateCommand.parse(["--db", path, "--name", "x", "--abilities", "notes:wrte"]).run()
        }
        await #expect(throws: ValidationError.self) {
            try await TokenRevokeCommand.parse(["--db", path, "nobody"]).run()
        }
        #expect(try await SQLiteStore(path: path).listTokens().isEmpty)
    }

    @Test("oak backup writes a restorable snapshot and keeps the newest N")
    func backup() async throws {
        let (directory, path) = temporaryDatabase()
        let backups = directory.appendingPathComponent("backups").path
        let store = try SQLiteStore(path: path)
        _ = try await store.createNote(NoteInput(scientificName: "alba"))
        for _ in 0..<3 {
            try await BackupCommand.parse(["--db", path, "--dir", backups, "--keep", "2"]).run()
            try await Task.sleep(for: .milliseconds(5))
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: backups).sorted()
        #expect(files.count == 2)
        let restored = try SQLiteStore(path: "\(backups)/\(try #require(files.last))")
        #expect(try await restored.notes(species: nil, sourceId: 3).map(\.scientificName) == ["alba"])
    }
}
