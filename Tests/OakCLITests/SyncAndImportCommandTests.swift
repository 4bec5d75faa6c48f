import Foundation
import GRDB
import OakStore
import Testing

/// Writes `text` to a file in `home` and returns its path.
func file(_ name: String, _ text: String, in home: URL) throws -> String {
    let url = home.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
}

@Suite("oak notes through a server, oak sync, import-bulk and taxa import")
struct SyncAndImportCommandTests {
    /// A profile file naming `url`, as the original CLI writes it.
    private func profile(_ url: String, key: String, home: URL) throws {
        let config = home.appendingPathComponent(".oak/config.yaml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("profiles:\n  field:\n    url: \(url)\n    key: \(key)\ndefault_profile: field\n".utf8).write(to: config)
    }

    @Test("remote: species, taxon and source written in the editor and notes written with --set reach the server")
    func remoteWrites() async throws {
        let (home, path) = try await starterDatabase()
        let server = try await ServerProcess(database: path, home: home)
        try profile(server.url, key: server.key, home: home)
        let species = try editorScript("sed -i 's/^subgenus:.*/subgenus: Cerris/' \"$1\"", in: home)
        let created = try await OakBinary.run(["new", "remotensis"], home: home, environment: ["EDITOR": species])
        #expect(created.status == 0, "\(created.error)")
        #expect(try await value(path, "SELECT subgenus FROM oak_entries WHERE scientific_name = 'remotensis'") == "Cerris")
        let notes = try editorScript("sed -i 's/^notes:.*/notes: from afar/' \"$1\"", in: home, name: "notes.sh")
        #expect(try await OakBinary.run(["taxa", "new", "section", "Remotae"], home: home, environment: ["EDITOR": notes]).status == 0)
        #expect(try await value(path, "SELECT notes FROM taxa WHERE name = 'Remotae'") == "from afar")
        let source = try editorScript("sed -i 's/^name:.*/name: Remote Guide/; s/^source_type:.*/source_type: Book/' \"$1\"", in: home, name: "source.sh")
        #expect(try await OakBinary.run(["source", "new"], home: home, environment: ["EDITOR": source]).status == 0)
        let id = try await value(path, "SELECT id FROM sources WHERE name = 'Remote Guide'")
        #expect(!id.isEmpty)
        #expect(try await OakBinary.run(["source", "edit", id], home: home, environment: ["EDITOR": notes]).status == 0)
        #expect(try await value(path, "SELECT notes FROM sources WHERE id = \(id)") == "from afar")
        #expect(try await OakBinary.run(["source", "delete", id, "--force"], home: home).status == 0)
        #expect(try await OakBinary.run(["taxa", "delete", "section", "Remotae", "--force"], home: home).status == 0)
        #expect(try await value(path, "SELECT COUNT(*) FROM taxa WHERE name = 'Remotae'") == "0")

        let note = try await OakBinary.run(["note", "alba", "--set", "bark=ashy grey"], home: home)
        #expect(note.status == 0, "\(note.error)")
        #expect(note.error.contains("Saved the note on alba from source 3."))
        #expect(try await value(path, "SELECT bark FROM species_sources WHERE scientific_name = 'alba' AND source_id = 3") == "ashy grey")
        let listed = try await OakBinary.run(["notes", "list"], home: home)
        #expect(listed.output == (try await OakBinary.run(["notes", "list", "-d", path], home: home)).output, "local and remote print the same")
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent(".oak/cache/field.sqlite").path))
        #expect(try await OakBinary.run(["notes", "rm", "alba"], home: home).status == 0)
        #expect(try await value(path, "SELECT COUNT(*) FROM species_sources WHERE scientific_name = 'alba' AND source_id = 3") == "0")
    }

    @Test("offline note then sync: with the server down the note is queued at once; oak sync sends it when it is back")
    func offlineNoteThenSync() async throws {
        let (home, path) = try await starterDatabase()
        var server = try await ServerProcess(database: path, home: home)
        try profile(server.url, key: server.key, home: home)
        let first = try await OakBinary.run(["sync"], home: home)
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output.contains("Pending:     0"))
        server.stop()

        let queued = try await OakBinary.run(["note", "alba", "--set", "leaf=written offline"], home: home, timeout: .seconds(20))
        #expect(queued.status == 0, "\(queued.error)")
        #expect(queued.error.contains("Queued the note on alba from source 3 in the sync cache: the server cannot be reached"))
        let offlineList = try await OakBinary.run(["notes", "list"], home: home)
        #expect(offlineList.status == 0)
        #expect(offlineList.error.hasPrefix("Offline: the server cannot be reached; showing the local cache (last synced "))
        #expect(offlineList.output.contains("alba"))
        let status = try await OakBinary.run(["sync", "--status"], home: home)
        #expect(status.output.contains("Pending:     1 note change(s)"))
        let failed = try await OakBinary.run(["sync"], home: home)
        #expect(failed.status == 5)

        server = try await ServerProcess(database: path, home: home, port: server.port)
        let synced = try await OakBinary.run(["sync", "--json"], home: home)
        #expect(synced.status == 0, "\(synced.error)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(synced.output.utf8)) as? [String: Any])
        #expect(report["pending"] as? Int == 0)
        #expect(report["lastSync"] is String)
        #expect(try await value(path, "SELECT leaves FROM species_sources WHERE scientific_name = 'alba' AND source_id = 3") == "written offline")
    }

    @Test("import-bulk: new species created; an existing one skipped, overwritten or merged as asked; --dry-run writes nothing")
    func importBulkConflicts() async throws {
        let (home, path) = try await starterDatabase()
        let records = try file(
            "bulk.yaml",
            """
            - scientific_name: bulkensis
              author: Tester
              subgenus: Quercus
              synonyms: [Quercus bulkii]
            - scientific_name: alba
              author: Someone Else
              synonyms: [Quercus alba var. bulk]
            """, in: home)
        let authorBefore = try await value(path, "SELECT author FROM oak_entries WHERE scientific_name = 'alba'")

        let dryRun = try await OakBinary.run(["import-bulk", records, "--source-id", "3", "--dry-run", "-d", path], home: home)
        #expect(dryRun.status == 0, "\(dryRun.error)")
        #expect(dryRun.error.contains("Dry run, nothing written: created 1, updated 1"))
        #expect(try await value(path, "SELECT COUNT(*) FROM oak_entries WHERE scientific_name = 'bulkensis'") == "0")

        let skip = try await OakBinary.run(["import-bulk", records, "--source-id", "3", "--on-conflict", "skip", "-d", path], home: home)
        #expect(skip.error.contains("created 1, updated 0, unchanged 0, skipped 1, errors 0"), "\(skip.error)")
        #expect(try await value(path, "SELECT author FROM oak_entries WHERE scientific_name = 'alba'") == authorBefore)

        let merge = try await OakBinary.run(["import-bulk", records, "--source-id", "3", "-d", path], home: home)
        #expect(merge.status == 0, "\(merge.error)")
        #expect(merge.error.contains("warning: \(records): [1] (alba): author: kept '\(authorBefore)'"))
        #expect(merge.error.contains("unchanged 1"), "bulkensis is already as the file says")
        #expect(try await value(path, "SELECT author FROM oak_entries WHERE scientific_name = 'alba'") == authorBefore)
        #expect(try await value(path, "SELECT synonyms FROM oak_entries WHERE scientific_name = 'alba'").contains("Quercus alba var. bulk"))

        let overwrite = try await OakBinary.run(["import-bulk", records, "--source-id", "3", "--on-conflict", "overwrite", "-d", path], home: home)
        #expect(overwrite.status == 0, "\(overwrite.error)")
        #expect(try await value(path, "SELECT author FROM oak_entries WHERE scientific_name = 'alba'") == "Someone Else")
        #expect(try await value(path, "SELECT synonyms FROM oak_entries WHERE scientific_name = 'alba'") == "[\"Quercus alba var. bulk\"]")
    }

    @Test("bad files: truncated JSON, wrong types, an invalid record, an unknown source id: reported, nothing written")
    func badBulkFiles() async throws {
        let (home, path) = try await starterDatabase()
        let before = try await value(path, "SELECT COUNT(*) FROM oak_entries")
        let truncated = try file("truncated.json", "[{\"scientific_name\": \"newa\", ", in: home)
        let bad = try await OakBinary.run(["import-bulk", truncated, "--source-id", "3", "-d", path], home: home)
        #expect(bad.status == 4)
        #expect(bad.error.contains("is not a list of species records"))

        let wrongType = try file("types.json", "[{\"scientific_name\": \"newa\"}, {\"scientific_name\": \"newb\", \"is_hybrid\": \"yes\"}]", in: home)
        let typed = try await OakBinary.run(["import-bulk", wrongType, "--source-id", "3", "-d", path], home: home)
        #expect(typed.status == 4)
        #expect(typed.error.contains("[1].is_hybrid: expected true or false"), "\(typed.error)")

        let invalid = try file("invalid.yaml", "- scientific_name: newa\n- scientific_name: newb\n  conservation_status: XX\n", in: home)
        let rejected = try await OakBinary.run(["import-bulk", invalid, "--source-id", "3", "-d", path], home: home)
        #expect(rejected.status == 4)
        #expect(rejected.error.contains("error: \(invalid): [1] (newb): conservation_status: must be one of"), "\(rejected.error)")
        #expect(rejected.error.contains("Nothing imported"))

        let unknownSource = try await OakBinary.run(["import-bulk", invalid, "--source-id", "999", "-d", path], home: home)
        #expect(unknownSource.status == 2)
        #expect(try await value(path, "SELECT COUNT(*) FROM oak_entries") == before, "nothing of a failed import is written")
    }

    @Test("taxa import: a taxa file creates taxa parents first; importing again changes nothing; a bad parent writes nothing")
    func taxaImport() async throws {
        let (home, path) = try await starterDatabase()
        let taxa = try file(
            "taxa.yaml",
            """
            subsections:
              - name: Importatae
                parent: Imported
            sections:
              - name: Imported
                parent: Quercus
                author: Tester
                links:
                  - {label: Wiki, url: "https://example.org/imported"}
            """, in: home)
        let imported = try await OakBinary.run(["taxa", "import", taxa, "-d", path], home: home)
        #expect(imported.status == 0, "\(imported.error)")
        #expect(imported.error.contains("created 2, updated 0, unchanged 0"))
        #expect(try await value(path, "SELECT parent FROM taxa WHERE name = 'Importatae' AND level = 'subsection'") == "Imported")
        let again = try await OakBinary.run(["taxa", "import", taxa, "-d", path], home: home)
        #expect(again.error.contains("created 0, updated 0, unchanged 2"), "\(again.error)")

        let orphan = try file("orphan.yaml", "sections:\n  - name: Lonely\n    parent: Nowhere\n", in: home)
        let failed = try await OakBinary.run(["taxa", "import", orphan, "-d", path], home: home)
        #expect(failed.status == 4)
        #expect(failed.error.contains("sections[0] (Lonely): parent: no subgenus named 'Nowhere' exists"), "\(failed.error)")
        #expect(try await value(path, "SELECT COUNT(*) FROM taxa WHERE name = 'Lonely'") == "0")
    }
}
