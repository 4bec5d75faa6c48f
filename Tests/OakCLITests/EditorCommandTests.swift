import Foundation
import GRDB
import OakStore
import Testing

/// An `$EDITOR` for tests: a shell script run on the document's path (as `$1`).
func editorScript(_ body: String, in home: URL, name: String = "editor.sh") throws -> String {
    let url = home.appendingPathComponent(name)
    try Data("#!/bin/sh\n\(body)\n".utf8).write(to: url)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
    return url.path
}

/// One value of one row, as text ("" when absent or null).
func value(_ path: String, _ sql: String) async throws -> String {
    try await DatabaseQueue(path: path).read { db in try String.fetchOne(db, sql: sql) ?? "" }
}

@Suite("oak new, edit and note in $EDITOR")
struct EditorCommandTests {
    @Test("editor, valid: oak new and oak edit apply what is saved; taxa and sources too")
    func validEdits() async throws {
        let (home, path) = try await starterDatabase()
        let species = try editorScript(
            "sed -i 's/^author:.*/author: L./; s/^subgenus:.*/subgenus: Quercus/; s/^synonyms:.*/synonyms: [Quercus pedunculata]/' \"$1\"", in: home)
        let existing = try await OakBinary.run(["new", "alba", "-d", path], home: home, environment: ["EDITOR": species])
        #expect(existing.status == 3, "an existing species is refused before the editor opens")
        let created = try await OakBinary.run(["new", "Quercus testensis", "-d", path], home: home, environment: ["EDITOR": species])
        #expect(created.status == 0, "\(created.error)")
        #expect(created.error.contains("Created testensis"))
        #expect(
            try await value(path, "SELECT author || '|' || subgenus || '|' || synonyms FROM oak_entries WHERE scientific_name = 'testensis'")
                == "L.|Quercus|[\"Quercus pedunculata\"]")

        let author = try editorScript("sed -i 's/^author:.*/author: Linnaeus/' \"$1\"", in: home, name: "author.sh")
        let edited = try await OakBinary.run(["edit", "alba", "-d", path], home: home, environment: ["VISUAL": author, "EDITOR": "false"])
        #expect(edited.status == 0, "\(edited.error)")
        #expect(try await value(path, "SELECT author FROM oak_entries WHERE scientific_name = 'alba'") == "Linnaeus")

        let notes = try editorScript("sed -i 's/^notes:.*/notes: red oaks/' \"$1\"", in: home, name: "notes.sh")
        let taxon = try await OakBinary.run(["taxa", "new", "section", "Testae", "-d", path], home: home, environment: ["EDITOR": notes])
        #expect(taxon.status == 0, "\(taxon.error)")
        #expect(try await value(path, "SELECT notes FROM taxa WHERE name = 'Testae'") == "red oaks")
        let retaxon = try await OakBinary.run(["taxa", "edit", "section", "Testae", "-d", path], home: home, environment: ["EDITOR": author])
        #expect(retaxon.status == 0, "\(retaxon.error)")
        #expect(try await value(path, "SELECT author FROM taxa WHERE name = 'Testae'") == "Linnaeus")

        let source = try editorScript(
            "sed -i 's/^name:.*/name: Field Guide/; s/^source_type:.*/source_type: Book/; s/^year:.*/year: 1999/' \"$1\"", in: home, name: "source.sh")
        let newSource = try await OakBinary.run(["source", "new", "-d", path], home: home, environment: ["EDITOR": source])
        #expect(newSource.status == 0, "\(newSource.error)")
        let id = try await value(path, "SELECT id FROM sources WHERE name = 'Field Guide' AND year = 1999")
        #expect(!id.isEmpty)
        let sourceEdit = try await OakBinary.run(["source", "edit", id, "-d", path], home: home, environment: ["EDITOR": author])
        #expect(sourceEdit.status == 0, "\(sourceEdit.error)")
        #expect(try await value(path, "SELECT author FROM sources WHERE id = \(id)") == "Linnaeus")

        // And both go again: local CRUD of each resource ends with its delete.
        #expect(try await OakBinary.run(["taxa", "delete", "section", "Testae", "-d", path, "--force"], home: home).status == 0)
        #expect(try await value(path, "SELECT COUNT(*) FROM taxa WHERE name = 'Testae'") == "0")
        #expect(try await OakBinary.run(["source", "delete", id, "-d", path, "--force"], home: home).status == 0)
        #expect(try await value(path, "SELECT COUNT(*) FROM sources WHERE id = \(id)") == "0")
        #expect(try await OakBinary.run(["delete", "testensis", "-d", path, "--force"], home: home).status == 0)
        #expect(try await value(path, "SELECT COUNT(*) FROM oak_entries WHERE scientific_name = 'testensis'") == "0")
    }

    @Test("editor, invalid then fixed: the editor re-opens with the errors on top and the text kept; the fix is saved")
    func invalidThenFixed() async throws {
        let (home, path) = try await starterDatabase()
        let seen = home.appendingPathComponent("second-round.yaml").path
        // First round: an invalid status and a new author. Second round: keep a copy of what was shown, fix the status.
        let script = try editorScript(
            """
            if grep -q '^# ERROR' "$1"; then
              cp "$1" '\(seen)'
              sed -i 's/^conservation_status:.*/conservation_status: VU/' "$1"
            else
              sed -i 's/^conservation_status:.*/conservation_status: XX/; s/^author:.*/author: Kept Author/' "$1"
            fi
            """, in: home)
        let edited = try await OakBinary.run(["edit", "alba", "-d", path], home: home, environment: ["EDITOR": script])
        #expect(edited.status == 0, "\(edited.error)")
        let shown = try String(contentsOfFile: seen, encoding: .utf8)
        #expect(shown.hasPrefix("# ERROR: conservation_status: must be one of"))
        #expect(shown.contains("author: Kept Author"), "the user's text is kept")
        #expect(
            try await value(path, "SELECT conservation_status || '|' || author FROM oak_entries WHERE scientific_name = 'alba'")
                == "VU|Kept Author")
        let edits = try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent(".oak/edits").path)
        #expect(edits.isEmpty, "a session that ends saved leaves no file behind")
    }

    @Test("editor, unchanged: quitting without saving changes nothing; a failed editor keeps the text and prints where")
    func unchangedAndAborted() async throws {
        let (home, path) = try await starterDatabase()
        let before = try await value(path, "SELECT author FROM oak_entries WHERE scientific_name = 'alba'")
        let unchanged = try await OakBinary.run(["edit", "alba", "-d", path], home: home, environment: ["EDITOR": "true"])
        #expect(unchanged.status == 0)
        #expect(unchanged.error.contains("No changes."))
        let nothing = try await OakBinary.run(["new", "testensis", "-d", path], home: home, environment: ["EDITOR": "true"])
        #expect(nothing.status == 0)
        #expect(nothing.error.contains("Nothing created."))
        #expect(try await value(path, "SELECT COUNT(*) FROM oak_entries WHERE scientific_name = 'testensis'") == "0")

        let crash = try editorScript("sed -i 's/^author:.*/author: Lost?/' \"$1\"; exit 3", in: home)
        let aborted = try await OakBinary.run(["edit", "alba", "-d", path], home: home, environment: ["EDITOR": crash])
        #expect(aborted.status == 1)
        let kept = try #require(aborted.error.split(separator: " ").last.map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(try String(contentsOfFile: kept, encoding: .utf8).contains("author: Lost?"), "the typed text is recoverable")
        #expect(try await value(path, "SELECT author FROM oak_entries WHERE scientific_name = 'alba'") == before)
    }

    @Test("notes, local: note --set creates and changes fields, the editor writes the rest, notes list shows it, notes rm deletes it")
    func localNotes() async throws {
        let (home, path) = try await starterDatabase()
        let set = try await OakBinary.run(
            ["note", "alba", "-d", path, "--set", "leaf=deeply lobed", "--set", "commonNames=white oak, stave oak"], home: home)
        #expect(set.status == 0, "\(set.error)")
        #expect(set.error.contains("Saved the note on alba from source 3."))
        let bark = try editorScript("sed -i 's/^bark:.*/bark: pale, scaly/' \"$1\"", in: home)
        #expect(try await OakBinary.run(["note", "alba", "-d", path], home: home, environment: ["EDITOR": bark]).status == 0)
        #expect(
            try await value(path, "SELECT leaves || '|' || bark || '|' || local_names FROM species_sources WHERE scientific_name = 'alba' AND source_id = 3")
                == "deeply lobed|pale, scaly|[\"white oak\",\"stave oak\"]")
        let listed = try await OakBinary.run(["notes", "list", "-d", path], home: home)
        #expect(listed.output.hasPrefix("SPECIES"))
        #expect(listed.output.contains("white oak, stave oak"))
        let json = try await OakBinary.run(["notes", "list", "--species", "alba", "-d", path, "--json"], home: home)
        let notes = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect((notes.first?["fields"] as? [String: Any])?["bark"] as? String == "pale, scaly")

        let unknownField = try await OakBinary.run(["note", "alba", "-d", path, "--set", "colour=red"], home: home)
        #expect(unknownField.status == 64)
        #expect(unknownField.error.contains("colour: is not a note field"))
        let unknownSpecies = try await OakBinary.run(["note", "nowhereensis", "-d", path, "--set", "leaf=x"], home: home)
        #expect(unknownSpecies.status == 2)

        let removed = try await OakBinary.run(["notes", "rm", "alba", "-d", path], home: home)
        #expect(removed.status == 0, "\(removed.error)")
        #expect(try await value(path, "SELECT COUNT(*) FROM species_sources WHERE scientific_name = 'alba' AND source_id = 3") == "0")
        #expect(try await OakBinary.run(["notes", "rm", "alba", "-d", path], home: home).status == 2)
    }
}
