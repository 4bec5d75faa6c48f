import Foundation
import GRDB
import OakModels
import OakStore
import OakStoreSQLite
import OakTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A database for CLI tests: the starter dataset (as `oak serve` makes it), in a new HOME.
func starterDatabase() async throws -> (home: URL, path: String) {
    let home = temporaryHome()
    let path = home.appendingPathComponent("oak_compendium.db").path
    // Opened as `oak serve` opens a new file: migrated, with the standard sources and the starter dataset.
    _ = try SQLiteStore(path: path)
    return (home, path)
}

/// A live `oak serve` (the built binary) on a free loopback port, stopped when the test ends.
final class ServerProcess: @unchecked Sendable {
    let process: SpawnedProcess
    let url: String
    let key = "cli-test-owner-key-0123456789"

    let port: Int

    /// Starts on `database` (a file, or a PostgreSQL URL) on `port`, or on a free one, with `extraArguments` after the usual ones and `environment` added;
    /// its output and log go to `log` when given. `fileLimit` sets both file-descriptor limits first (through the shell's `ulimit`).
    /// A free port can be taken by another test (a client's ephemeral port) before the server binds it; then the
    /// server exits at once and is started again on another.
    init(
        database: String, home: URL, port: Int? = nil, extraArguments: [String] = [], log: URL? = nil, fileLimit: Int? = nil,
        environment: [String: String] = [:]
    ) async throws {
        var attempt = 0
        while true {
            attempt += 1
            let chosen = try port ?? ServerSocket.freePort()
            let started = try Self.start(
                port: chosen, database: database, home: home, key: key, extraArguments: extraArguments, log: log, fileLimit: fileLimit,
                environment: environment)
            let url = "http://127.0.0.1:\(chosen)"
            let ready = try await Self.becomesReady(started, url: url)
            if ready || port != nil || attempt == 3 {
                if !ready { Issue.record("oak serve exited before it was ready, \(attempt) times") }
                (process, self.port, self.url) = (started, chosen, url)
                return
            }
        }
    }

    /// Spawns `oak serve` (through the shell when a file limit is set).
    private static func start(
        port: Int, database: String, home: URL, key: String, extraArguments: [String], log: URL?, fileLimit: Int?, environment: [String: String]
    ) throws -> SpawnedProcess {
        let arguments =
            [
                "serve", "--port", String(port), database.hasPrefix("postgres") ? "--database-url" : "--db", database, "--no-rate-limit",
                "--no-daily-backup",
                "--backup-dir", home.appendingPathComponent("backups").path,
            ] + extraArguments
        let executable: URL
        var launchArguments = arguments
        if let fileLimit {
            executable = URL(fileURLWithPath: "/bin/sh")
            launchArguments = ["-c", "ulimit -n \(fileLimit) && exec \"$0\" \"$@\"", try OakBinary.url.path] + arguments
        } else {
            executable = try OakBinary.url
        }
        var logHandle: FileHandle?
        if let log {
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            logHandle = try FileHandle(forWritingTo: log)
        }
        let process = try SpawnedProcess(
            executable: executable, arguments: launchArguments,
            environment: ["HOME": home.path, "OAK_API_KEY": key, "PATH": "/usr/bin:/bin"].merging(environment) { _, new in new },
            output: logHandle?.fileDescriptor, error: logHandle?.fileDescriptor)
        try logHandle?.close()
        return process
    }

    /// Waits up to 30 s for `/health/ready`: true once it answers, false if the server exited first; a server
    /// still not ready is stopped and recorded as an issue. (A start takes milliseconds alone, but CI runs every
    /// suite at once on two cores, and one start there once took over 10 s.)
    private static func becomesReady(_ process: SpawnedProcess, url: String) async throws -> Bool {
        for _ in 0..<600 {
            if let (_, response) = try? await URLSession.shared.data(from: URL(string: "\(url)/health/ready")!),
                (response as? HTTPURLResponse)?.statusCode == 200
            {
                return true
            }
            if !process.isRunning { return false }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        Issue.record("oak serve did not start")
        return true
    }

    /// Stops the server and waits until it has exited.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

@Suite("oak commands on a database file and on a server")
struct CatalogCommandTests {
    @Test("local: find, show, taxa, source, stats and notes print aligned text, or one JSON document with --json")
    func localReads() async throws {
        let (home, path) = try await starterDatabase()
        let found = try await OakBinary.run(["find", "lba", "-d", path], home: home)
        #expect(found.status == 0)
        #expect(found.output.hasPrefix("NAME"))
        #expect(found.output.contains("alba"))
        let ids = try await OakBinary.run(["find", "x bebb", "-d", path, "--id-only"], home: home)
        #expect(ids.output == "× bebbiana\n")
        let json = try await OakBinary.run(["find", "alba", "-d", path, "--json"], home: home)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect((document["species"] as? [[String: Any]])?.first?["scientific_name"] as? String == "alba")

        let shown = try await OakBinary.run(["show", "Quercus alba", "-d", path], home: home)
        #expect(shown.output.hasPrefix("Quercus alba L."))
        #expect(shown.output.contains("× bebbiana"))
        let tree = try await OakBinary.run(["taxa", "list", "-d", path], home: home)
        #expect(tree.output.contains("Quercus (subgenus,"))
        #expect(tree.output.contains("\n  Lobatae (section,"))
        let sources = try await OakBinary.run(["source", "list", "-d", path], home: home)
        #expect(sources.output.contains("iNaturalist"))
        let stats = try await OakBinary.run(["stats", "-d", path, "--json"], home: home)
        #expect((try JSONSerialization.jsonObject(with: Data(stats.output.utf8)) as? [String: Any])?["hybrid_count"] as? Int == 19)
        #expect(try await OakBinary.run(["notes", "list", "-d", path], home: home).output.contains("No notes"))
    }

    @Test("local: delete refuses without a terminal unless --force; unknown names exit 2; nothing is deleted by mistake")
    func localDelete() async throws {
        let (home, path) = try await starterDatabase()
        let refused = try await OakBinary.run(["delete", "acutissima", "-d", path], home: home)
        #expect(refused.status == 64)
        #expect(refused.error.contains("--force"))
        #expect(try await count(path, "SELECT COUNT(*) FROM oak_entries WHERE scientific_name = 'acutissima'") == 1)
        let deleted = try await OakBinary.run(["delete", "acutissima", "-d", path, "--force"], home: home)
        #expect(deleted.status == 0)
        #expect(try await count(path, "SELECT COUNT(*) FROM oak_entries WHERE scientific_name = 'acutissima'") == 0)
        let parent = try await OakBinary.run(["delete", "alba", "-d", path, "--force"], home: home)
        #expect(parent.status == 3, "a parent of hybrids is not deleted")
        let missing = try await OakBinary.run(["delete", "nonesuch", "-d", path, "--force"], home: home)
        #expect(missing.status == 2)
        #expect(missing.error == "error: Species 'nonesuch' not found\n")
        let blocked = try await OakBinary.run(["source", "delete", "3", "-d", path, "--force"], home: home)
        #expect(blocked.status == 0, "source 3 has no data yet in the starter dataset")
        let inUse = try await OakBinary.run(["taxa", "delete", "section", "Lobatae", "-d", path, "--force"], home: home)
        #expect(inUse.status == 3)
        #expect(try await count(path, "SELECT COUNT(*) FROM taxa WHERE name = 'Lobatae'") == 1)
    }

    @Test("safety: a database path that does not exist is refused (exit 64, one line) unless --create; -v names the database")
    func missingDatabase() async throws {
        let home = temporaryHome()
        let missing = try await OakBinary.run(["stats"], home: home)
        #expect(missing.status == 64)
        #expect(missing.error.split(separator: "\n").count == 1)
        #expect(missing.error.contains("--create"))
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("oak_compendium.db").path))
        let created = try await OakBinary.run(["stats", "--create", "-v"], home: home)
        #expect(created.status == 0)
        #expect(created.error.contains("Using the database ./oak_compendium.db"))
        #expect(created.output.contains("species (not hybrids)"))
    }

    @Test("import of an export file then export: the same species, sources and data; importing twice changes nothing")
    func importExportRoundTrip() async throws {
        let (home, path) = try await starterDatabase()
        #expect(try await OakBinary.run(["import", "-d", path, "--help"], home: home).status == 0)
        let file = home.appendingPathComponent("export.json").path
        let exported = try await OakBinary.run(["export", file, "-d", path], home: home)
        #expect(exported.status == 0)
        #expect(exported.error.contains("Exported 96 species"))

        let copy = home.appendingPathComponent("copy.db").path
        let first = try await OakBinary.run(["import", file, "-d", copy, "--create"], home: home)
        #expect(first.status == 0, "\(first.error)")
        #expect(first.error.contains("created 96"))
        let second = try await OakBinary.run(["import", file, "-d", copy], home: home)
        #expect(second.error.contains("created 0, updated 0, unchanged 99"))

        let again = try await OakBinary.run(["export", "-d", copy], home: home)
        let original = try JSONDecoder().decode(ExportFile.self, from: Data(contentsOf: URL(fileURLWithPath: file)))
        let roundTripped = try JSONDecoder().decode(ExportFile.self, from: Data(again.output.utf8))
        #expect(roundTripped.species == original.species)
        #expect(roundTripped.sources == original.sources)
    }

    @Test("a large compendium exported to standard output arrives whole (more than a pipe holds at once)")
    func largeExportToStandardOutput() async throws {
        let (home, path) = try await starterDatabase()
        let species = (0..<600).map { index in
            #"{"name": "synthetica\#(index)", "is_hybrid": false, "author": "Tester \#(String(repeating: "x", count: 80))", "taxonomy": {"genus": "Quercus"}}"#
        }
        let file = home.appendingPathComponent("many.json")
        try Data(#"{"sources": [], "species": [\#(species.joined(separator: ","))]}"#.utf8).write(to: file)
        let imported = try await OakBinary.run(["import", file.path, "-d", path], home: home)
        #expect(imported.status == 0, "\(imported.error)")

        let exported = try await OakBinary.run(["export", "-d", path], home: home)
        #expect(exported.status == 0)
        #expect(exported.output.utf8.count > 64 << 10)
        let decoded = try JSONDecoder().decode(ExportFile.self, from: Data(exported.output.utf8))
        #expect(decoded.species.count == 696)
    }

    @Test("bad files (truncated JSON, wrong types, unknown source id) are reported with their place, and nothing is written; --dry-run writes nothing")
    func badImports() async throws {
        let (home, path) = try await starterDatabase()
        let before = try await count(path, "SELECT COUNT(*) FROM oak_entries")
        func attempt(_ json: String) async throws -> OakBinary.Outcome {
            let file = home.appendingPathComponent("bad-\(UUID().uuidString).json")
            try Data(json.utf8).write(to: file)
            return try await OakBinary.run(["import", file.path, "-d", path], home: home)
        }
        let truncated = try await attempt(#"{"metadata": {"version": "x", "exported_at": "x", "species_count": 1}, "sources": [], "species": [{"name": "nova"#)
        #expect(truncated.status == 4)
        #expect(truncated.error.contains("is not an export file"))
        let wrongType = try await attempt(#"{"sources": [], "species": [{"name": "nova", "is_hybrid": false}, {"name": "other", "is_hybrid": "yes"}]}"#)
        #expect(wrongType.status == 4)
        #expect(wrongType.error.contains("species[1].is_hybrid"), "\(wrongType.error)")
        let unknownSource = try await attempt(
            #"{"sources": [], "species": [{"name": "nova", "is_hybrid": false}, {"name": "altera", "is_hybrid": false, "sources": [{"source_id": 99, "source_name": "?", "is_preferred": false}]}]}"#
        )
        #expect(unknownSource.status == 4)
        #expect(unknownSource.error.contains("species[1] (altera): sources: no source with id 99"), "\(unknownSource.error)")
        #expect(try await count(path, "SELECT COUNT(*) FROM oak_entries") == before, "the good record of a failed import is not kept either")

        let file = home.appendingPathComponent("one.json")
        try Data(#"{"sources": [], "species": [{"name": "nova", "is_hybrid": false}]}"#.utf8).write(to: file)
        let dryRun = try await OakBinary.run(["import", file.path, "-d", path, "--dry-run"], home: home)
        #expect(dryRun.status == 0)
        #expect(dryRun.error.contains("Dry run, nothing written: created 1"))
        #expect(try await count(path, "SELECT COUNT(*) FROM oak_entries") == before)
    }

    @Test("remote: the same commands against a live oak serve through a profile in the original CLI's config.yaml; writes carry the profile's key")
    func remoteMode() async throws {
        let (home, path) = try await starterDatabase()
        let server = try await ServerProcess(database: path, home: home)
        let config = home.appendingPathComponent(".oak/config.yaml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Written as the original Go CLI writes it.
        try Data("profiles:\n  local:\n    url: \(server.url)\n    key: \(server.key)\ndefault_profile: local\n".utf8).write(to: config)

        let local = try await OakBinary.run(["find", "lba", "-d", path, "--local"], home: home)
        let remote = try await OakBinary.run(["find", "lba"], home: home)
        #expect(remote.status == 0, "\(remote.error)")
        #expect(remote.output == local.output, "local and remote runs print the same thing")
        let shown = try await OakBinary.run(["show", "alba", "-v"], home: home)
        #expect(shown.error.contains("Using the server \(server.url)"))
        #expect(shown.output == (try await OakBinary.run(["show", "alba", "-d", path], home: home)).output)

        let deleted = try await OakBinary.run(["delete", "acutissima", "--force"], home: home)
        #expect(deleted.status == 0, "\(deleted.error)")
        #expect(try await count(path, "SELECT COUNT(*) FROM oak_entries WHERE scientific_name = 'acutissima'") == 0)

        try Data("profiles:\n  local:\n    url: \(server.url)\n    key: wrong\ndefault_profile: local\n".utf8).write(to: config)
        let unauthorized = try await OakBinary.run(["delete", "alba", "--force"], home: home)
        #expect(unauthorized.status == 6)
        let unknown = try await OakBinary.run(["stats", "--profile", "nowhere"], home: home)
        #expect(unknown.status == 64)
        #expect(unknown.error.contains("No profile named 'nowhere'"))
        // A server that is not there fails at once (exit 5), without waiting out the request timeout.
        let started = ContinuousClock.now
        let down = try await OakBinary.run(["stats"], home: home, environment: ["OAK_API_URL": "http://127.0.0.1:9"])
        #expect(down.status == 5)
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test("oak config add, list, use and show manage ~/.oak/config.yaml, written with mode 0600")
    func config() async throws {
        let home = temporaryHome()
        #expect(try await OakBinary.run(["config", "add", "prod", "--url", "https://oaks.example.org", "--key", "abcdef123456"], home: home).status == 0)
        #expect(try await OakBinary.run(["config", "add", "lab", "--url", "http://127.0.0.1:9"], home: home).status == 0)
        let file = home.appendingPathComponent(".oak/config.yaml").path
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber).intValue
        #expect(mode == 0o600)
        #expect(try await OakBinary.run(["config", "use", "prod"], home: home).status == 0)
        let listed = try await OakBinary.run(["config", "list"], home: home)
        #expect(listed.output.contains("*  prod"))
        #expect(listed.output.contains("abcd…3456"))
        #expect(!listed.output.contains("abcdef123456"))
        let shown = try await OakBinary.run(["config", "show"], home: home)
        #expect(shown.output.contains("Mode: remote, profile prod, server https://oaks.example.org"))
        let bad = try await OakBinary.run(["config", "add", "x", "--url", "not a url"], home: home)
        #expect(bad.status == 64)
        #expect(try await OakBinary.run(["config", "use", "nope"], home: home).status == 64)
    }

    private func count(_ path: String, _ sql: String) async throws -> Int {
        try await DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }
}
