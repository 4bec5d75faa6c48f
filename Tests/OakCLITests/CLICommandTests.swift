import Foundation
import OakModels
import OakStore
import OakStoreSQLite
import Testing

@Suite("oak token, oak backup, oak-bench and oak-simulate through the binaries")
struct CLICommandTests {
    @Test("oak token create stores a hashed token with its abilities; list and revoke work on it")
    func tokenLifecycle() async throws {
        let (home, path) = try await starterDatabase()
        let created = try await OakBinary.run(["token", "create", "--db", path, "--name", "ipad", "--abilities", "notes:write,species:write"], home: home)
        #expect(created.status == 0, "\(created.error)")
        #expect(created.output.contains("Secret (shown once; store it now):"))
        let store = try SQLiteStore(path: path)
        #expect(try await store.listTokens().map(\.name) == ["ipad"])
        #expect(try await store.listTokens().first?.abilities == [.notesWrite, .speciesWrite])
        let listed = try await OakBinary.run(["token", "list", "--db", path], home: home)
        #expect(listed.output.hasPrefix("NAME"))
        #expect(listed.output.contains("ipad"))
        #expect(try await OakBinary.run(["token", "revoke", "--db", path, "ipad"], home: home).status == 0)
        #expect(try await store.listTokens().isEmpty)
    }

    @Test("oak token rejects unknown abilities and unknown names with a clear error")
    func tokenErrors() async throws {
        let (home, path) = try await starterDatabase()
        let ability = try await OakBinary.run(["token", "create", "--db", path, "--name", "x", "--abilities", "notes:wrte"], home: home)
        #expect(ability.status == 64)
        #expect(ability.error.contains("notes:wrte"))
        let revoke = try await OakBinary.run(["token", "revoke", "--db", path, "nobody"], home: home)
        #expect(revoke.status != 0)
        #expect(!revoke.error.isEmpty)
        #expect(try await SQLiteStore(path: path).listTokens().isEmpty)
    }

    @Test("safety: token create in a folder without the database refuses in one line and creates nothing, unless --create; -v names the file")
    func missingDatabaseRefused() async throws {
        let home = temporaryHome()
        let refused = try await OakBinary.run(["token", "create", "--name", "laptop", "--abilities", "notes:write"], home: home)
        #expect(refused.status == 64)
        #expect(refused.error == "error: No database at ./oak_compendium.db; give --db PATH, or --create to make a new one there\n")
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("oak_compendium.db").path))
        let created = try await OakBinary.run(["token", "create", "--name", "laptop", "--abilities", "notes:write", "--create", "-v"], home: home)
        #expect(created.status == 0, "\(created.error)")
        #expect(created.error.contains("Using the database ./oak_compendium.db"))
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("oak_compendium.db").path))
    }

    @Test("a reader that goes away (oak export | true) ends oak quietly by SIGPIPE, without a crash report, even with SIGPIPE ignored")
    func closedPipeEndsQuietly() async throws {
        let (home, path) = try await starterDatabase()
        // SIGPIPE is ignored, as a process that started NIO or a supervisor may leave it, so the write fails with
        // EPIPE; the reader has exited by the time oak writes.
        let outcome = try await OakBinary.runInShell(
            #"trap "" PIPE; ( sleep 0.3; exec "$0" export --database "$1" ) | true; exit "${PIPESTATUS[0]}""#, [path], home: home)
        #expect(outcome.status == 128 + SIGPIPE)
        #expect(outcome.error.isEmpty, "\(outcome.error)")
    }

    @Test("output that cannot be written (oak export > /dev/full) is exit 1 with one line on stderr, not a truncated success")
    func unwritableOutputFails() async throws {
        let (home, path) = try await starterDatabase()
        let outcome = try await OakBinary.runInShell(#"exec "$0" export --database "$1" > /dev/full"#, [path], home: home)
        #expect(outcome.status == 1)
        #expect(outcome.error == "error: cannot write to standard output: No space left on device\n")
    }

    @Test("safety: oak-bench seed never defaults to the user's database")
    func benchNeedsADatabase() async throws {
        let (home, path) = try await starterDatabase()
        let before = try await value(path, "SELECT COUNT(*) FROM oak_entries")
        let refused = try await OakBinary.run(["seed", "--species", "5000"], home: home, binary: "oak-bench")
        #expect(refused.status == 64)
        #expect(refused.error.contains("--db"))
        #expect(try await value(path, "SELECT COUNT(*) FROM oak_entries") == before)
    }

    @Test("oak-simulate runs a printed range of seeds and one seed alone, exit 0; a number that is not one is a usage error naming where it came from")
    func simulatorRunner() async throws {
        let home = temporaryHome()
        let range = try await OakBinary.run(["--seeds", "3", "--first-seed", "40"], home: home, timeout: .seconds(120), binary: "oak-simulate")
        #expect(range.status == 0, "\(range.error)")
        #expect(range.output.hasPrefix("Sync simulator: 3 seeds from 40 (--first-seed 40 runs them again)\n"))
        #expect(range.output.contains("3 seeds kept the sync rule"))
        let one = try await OakBinary.run(["--steps", "5"], home: home, environment: ["OAK_SIM_SEED": "41"], timeout: .seconds(60), binary: "oak-simulate")
        #expect(one.status == 0, "\(one.error)")
        #expect(one.output.hasPrefix("The seed kept the sync rule"))
        for (arguments, environment, named) in [(["--seeds", "many"], [:], "--seeds"), ([], ["OAK_SIM_FIRST_SEED": "x"], "OAK_SIM_FIRST_SEED")] {
            let refused = try await OakBinary.run(arguments, home: home, environment: environment, binary: "oak-simulate")
            #expect(refused.status == 64)
            #expect(refused.error.contains(named) && refused.output.isEmpty)
        }
    }

    @Test("oak backup writes a restorable snapshot and keeps the newest N")
    func backup() async throws {
        let (home, path) = try await starterDatabase()
        let backups = home.appendingPathComponent("backups").path
        _ = try await SQLiteStore(path: path).createNote(NoteInput(scientificName: "alba"))
        for _ in 0..<3 {
            let outcome = try await OakBinary.run(["backup", "--db", path, "--dir", backups, "--keep", "2"], home: home)
            #expect(outcome.status == 0, "\(outcome.error)")
            #expect(outcome.output.hasPrefix("Backup written: \(backups)/"))
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: backups).sorted()
        #expect(files.count == 2)
        let restored = try SQLiteStore(path: "\(backups)/\(try #require(files.last))")
        #expect(try await restored.notes(species: nil, sourceId: 3).map(\.scientificName) == ["alba"])
    }
}
