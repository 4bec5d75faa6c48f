import Foundation
import GRDB
import OakTestSupport
import Testing

@Suite("oak commands reach every species by the name it is stored under")
struct StoredSpellingCommandTests {
    @Test("a hybrid stored with an ASCII x beside one stored with ×: show, note, notes list, edit and delete find each by its stored name")
    func bothSpellingsInOneFile() async throws {
        let (home, path) = try await starterDatabase()
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            for name in ["berberidifolia x cornelius-mulleri", "x keepii", "× keepii"] {
                try db.execute(sql: "INSERT INTO oak_entries (scientific_name, author) VALUES (?, ?)", arguments: [name, "stored as \(name)"])
            }
        }
        try queue.close()

        let shown = try await OakBinary.run(["show", "berberidifolia x cornelius-mulleri", "-d", path], home: home)
        #expect(shown.status == 0, "\(shown.error)")
        #expect(shown.output.contains("stored as berberidifolia x cornelius-mulleri"))
        for name in ["x keepii", "× keepii"] {
            let keepii = try await OakBinary.run(["show", name, "-d", path], home: home)
            #expect(keepii.output.contains("stored as \(name)"), "\(name): \(keepii.output)")
        }

        let noted = try await OakBinary.run(["note", "berberidifolia x cornelius-mulleri", "-d", path, "--set", "leaf=spiny"], home: home)
        #expect(noted.status == 0, "\(noted.error)")
        #expect(
            try await value(path, "SELECT COUNT(*) FROM species_sources WHERE scientific_name = 'berberidifolia x cornelius-mulleri' AND leaves = 'spiny'")
                == "1")
        let listed = try await OakBinary.run(["notes", "list", "--species", "berberidifolia x cornelius-mulleri", "-d", path, "--json"], home: home)
        let notes = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]], "\(listed.error)")
        #expect(notes.compactMap { $0["scientificName"] as? String } == ["berberidifolia x cornelius-mulleri"])
        let removed = try await OakBinary.run(["notes", "rm", "berberidifolia x cornelius-mulleri", "-d", path], home: home)
        #expect(removed.status == 0, "\(removed.error)")

        let deleted = try await OakBinary.run(["delete", "x keepii", "-d", path, "--force"], home: home)
        #expect(deleted.status == 0, "\(deleted.error)")
        #expect(try await value(path, "SELECT group_concat(scientific_name) FROM oak_entries WHERE scientific_name LIKE '%keepii'") == "× keepii")
    }
}
