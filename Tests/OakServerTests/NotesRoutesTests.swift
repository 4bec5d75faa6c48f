import Foundation
import GRDB
import HummingbirdTesting
import OakModels
import OakTestBasics
import OakTestSupport
import Testing

@Suite("Notes API")
struct NotesRoutesTests {
    static let albaNote =
        #"{"scientificName": "alba", "fields": {"commonNames": "White oak, Eastern white oak", "leaf": "7-9 rounded lobes", "acorn": "cup shallow", "form": "broad crown", "rangeHabitat": "Eastern North America", "fieldNotes": "seen at the ridge", "resources": "https://example.org/alba"}}"#

    @Test("list all notes as a JSON array with every field")
    func listNotes() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            try await client.send(.post, "/api/v1/notes", json: Self.albaNote)
            try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "robur", "fields": {"leaf": "auricles"}}"#)
            let notes = try await client.send(.get, "/api/v1/notes").array()
            #expect(notes.count == 2)
            let alba = try #require(notes.first { $0["scientificName"] as? String == "alba" })
            for key in ["id", "scientificName", "taxonomy", "fields", "sourceId", "createdAt", "updatedAt", "version"] {
                #expect(alba.keys.contains(key), "note lacks \(key)")
            }
            #expect((alba["taxonomy"] as? [String: Any])?["section"] as? String == "Quercus")
            #expect((alba["taxonomy"] as? [String: Any])?.keys.contains("subsection") == false)
            #expect((alba["fields"] as? [String: Any])?.keys.contains("twigs") == false)
            #expect(alba["sourceId"] as? Int == 3)
        }
    }

    @Test("filter notes by species; sourceId selects another source, default 3")
    func filterNotes() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            try await client.send(.post, "/api/v1/notes", json: Self.albaNote)
            try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "robur"}"#)
            try await client.send(.post, "/api/v1/species/alba/sources", json: #"{"source_id": 2, "leaves": "lobes"}"#)
            #expect(names(try await client.send(.get, "/api/v1/notes?species=alba").array(), "scientificName") == ["alba"])
            let fromSource2 = try await client.send(.get, "/api/v1/notes?sourceId=2").array()
            #expect(fromSource2.count == 1)
            #expect((fromSource2[0]["fields"] as? [String: Any])?["leaf"] as? String == "lobes")
        }
    }

    @Test("get a note by UUID; unknown is 404, malformed is 400, never 500")
    func getNote() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let created = try await client.send(.post, "/api/v1/notes", json: Self.albaNote).object()
            let id = try #require(created["id"] as? String)
            let fetched = try await client.send(.get, "/api/v1/notes/\(id)")
            #expect(fetched.status == .ok)
            #expect(try fetched.object()["id"] as? String == id)
            let unknown = try await client.send(.get, "/api/v1/notes/\(UUID().uuidString)")
            #expect(unknown.status == .notFound)
            #expect(try unknown.error().code == "NOT_FOUND")
            let malformed = try await client.send(.get, "/api/v1/notes/not-a-uuid")
            #expect(malformed.status == .badRequest)
            #expect(try malformed.invalidFields() == ["id"])
        }
    }

    @Test("create answers 201 with a server-assigned UUID, or the client's unused one")
    func createNote() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let created = try await client.send(.post, "/api/v1/notes", json: Self.albaNote)
            #expect(created.status == .created)
            #expect(UUID(uuidString: try #require(try created.object()["id"] as? String)) != nil)

            let clientID = UUID().uuidString.lowercased()
            let chosen = try await client.send(.post, "/api/v1/notes", json: #"{"id": "\#(clientID)", "scientificName": "robur"}"#)
            #expect(chosen.status == .created)
            #expect(try chosen.object()["id"] as? String == clientID)
            let reused = try await client.send(.post, "/api/v1/notes", json: #"{"id": "\#(clientID)", "scientificName": "petraea"}"#)
            #expect(reused.status == .conflict)
            let invalid = try await client.send(.post, "/api/v1/notes", json: #"{"id": "nope", "scientificName": "petraea"}"#)
            #expect(invalid.status == .badRequest)
            #expect(try invalid.invalidFields() == ["id"])
        }
    }

    @Test(
        "a note for a species that does not exist is a 400 naming scientificName, as the specification says; an unknown sourceId a 400 naming it; nothing is stored"
    )
    func createUnknownSpecies() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let response = try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "imaginaria"}"#)
            #expect(response.status == .badRequest)
            #expect(try response.error().code == "VALIDATION_ERROR")
            #expect(try response.invalidFields() == ["scientificName"])
            let source = try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba", "sourceId": 999}"#)
            #expect(source.status == .badRequest)
            #expect(try source.invalidFields() == ["sourceId"])
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources") == 0)
        }
    }

    @Test("a second note for the same species and source answers 409 with the existing id")
    func duplicatePair() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let first = try await client.send(.post, "/api/v1/notes", json: Self.albaNote).object()
            let second = try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba"}"#)
            #expect(second.status == .conflict)
            #expect(try second.error().details["id"] as? String == first["id"] as? String)
        }
    }

    @Test("a note field that is too long answers 400 naming the field (fields.leaf), on create, update and push; nothing is written")
    func tooLongFieldNamed() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let long = String(repeating: "x", count: FieldLimits.longText + 1)
            let created = try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba", "fields": {"leaf": "\#(long)"}}"#)
            #expect(created.status == .badRequest)
            #expect(try created.invalidFields() == ["fields.leaf"])
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE scientific_name = 'alba' AND source_id = 3") == 0)

            let note = try await client.send(.post, "/api/v1/notes", json: Self.albaNote).object()
            let id = try #require(note["id"] as? String)
            let updated = try await client.send(.put, "/api/v1/notes/\(id)", json: #"{"fields": {"fieldNotes": "\#(long)"}}"#)
            #expect(updated.status == .badRequest)
            #expect(try updated.invalidFields() == ["fields.fieldNotes"])

            let pushed = try await client.push([SyncWire.change(id, base: note["version"] as? Int, at: env.clock.now, bark: long)])
            #expect(pushed[0]["status"] as? String == "rejected")
            let errors = try #require((pushed[0]["error"] as? [String: Any])?["details"] as? [String: Any])["errors"] as? [[String: Any]] ?? []
            #expect(errors.compactMap { $0["field"] as? String } == ["fields.bark"])
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE uuid = ? AND length(bark) > 20000", [id]) == 0)
        }
    }

    @Test("a note for a source that does not exist answers 400 naming sourceId and writes nothing")
    func unknownSource() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let before = try await env.count("SELECT COUNT(*) FROM change_log")
            let response = try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba", "sourceId": 9999}"#)
            #expect(response.status == .badRequest)
            #expect(try response.invalidFields() == ["sourceId"])
            #expect(try response.error().message.contains("9999"))
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE source_id = 9999") == 0)
            #expect(try await env.count("SELECT COUNT(*) FROM change_log") == before)
        }
    }

    @Test("sourceId defaults to 3 and source-3 rows are is_preferred")
    func defaultSourcePreferred() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let created = try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "ilex"}"#).object()
            #expect(created["sourceId"] as? Int == 3)
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE scientific_name = 'ilex' AND source_id = 3 AND is_preferred = 1") == 1)
        }
    }

    @Test("update answers 200 with updatedAt set to server time, whole-second RFC 3339 UTC")
    func updateNote() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let created = try await client.send(.post, "/api/v1/notes", json: Self.albaNote).object()
            let id = try #require(created["id"] as? String)
            env.clock.advance(90.25)
            let updated = try await client.send(.put, "/api/v1/notes/\(id)", json: #"{"fields": {"bark": "pale, scaly", "leaf": null}}"#)
            #expect(updated.status == .ok)
            let body = try updated.object()
            #expect(body["updatedAt"] as? String == wire(env.clock.now))
            #expect((body["updatedAt"] as? String)?.hasSuffix("Z") == true)
            #expect(body["createdAt"] as? String == created["createdAt"] as? String)
            let fields = try #require(body["fields"] as? [String: Any])
            #expect(fields["bark"] as? String == "pale, scaly")
            #expect(fields["leaf"] == nil)
            #expect(fields["acorn"] as? String == "cup shallow")
            #expect((body["version"] as? Int ?? 0) > (created["version"] as? Int ?? 0))
        }
    }

    @Test("delete answers 204")
    func deleteNote() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = try #require(try await client.send(.post, "/api/v1/notes", json: Self.albaNote).object()["id"] as? String)
            let deleted = try await client.send(.delete, "/api/v1/notes/\(id)")
            #expect(deleted.status == .noContent)
            #expect(try await client.send(.get, "/api/v1/notes/\(id)").status == .notFound)
            #expect(try await client.send(.delete, "/api/v1/notes/\(id)").status == .notFound)
        }
    }

    @Test("note reads are public; writes without a key or with a wrong key answer 401")
    func notesAuth() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            #expect(try await client.send(.get, "/api/v1/notes", key: nil).status == .ok)
            let anonymous = try await client.send(.post, "/api/v1/notes", json: Self.albaNote, key: nil)
            #expect(anonymous.status == .unauthorized)
            let wrong = try await client.send(.post, "/api/v1/notes", json: Self.albaNote, key: "wrong")
            #expect(wrong.status == .unauthorized)
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources") == 0)
        }
    }

    @Test("a note written through /notes reads back through /species/{name}/sources/{id} with the mapped columns")
    func noteToSpeciesSource() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let note = try await client.send(.post, "/api/v1/notes", json: Self.albaNote).object()
            let row = try await client.send(.get, "/api/v1/species/alba/sources/3").object()
            #expect(row["uuid"] as? String == note["id"] as? String)
            #expect(row["local_names"] as? [String] == ["White oak", "Eastern white oak"])
            #expect(row["leaves"] as? String == "7-9 rounded lobes")
            #expect(row["fruits"] as? String == "cup shallow")
            #expect(row["growth_habit"] as? String == "broad crown")
            #expect(row["range"] as? String == "Eastern North America")
            #expect(row["miscellaneous"] as? String == "seen at the ridge")
            #expect(row["url"] as? String == "https://example.org/alba")
            #expect(row["is_preferred"] as? Bool == true)
        }
    }

    @Test("a species-source row written through its route reads back as a note")
    func speciesSourceToNote() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let row = try await client.send(
                .post, "/api/v1/species/robur/sources",
                json:
                    #"{"source_id": 3, "local_names": ["English oak", "pedunculate oak"], "leaves": "auricled base", "fruits": "long peduncle", "bark": "fissured", "twigs": "glabrous", "buds": "clustered", "growth_habit": "large tree", "range": "Europe", "miscellaneous": "parkland", "url": "https://example.org/robur"}"#
            ).object()
            let note = try await client.send(.get, "/api/v1/notes/\(try #require(row["uuid"] as? String))").object()
            let fields = try #require(note["fields"] as? [String: Any])
            #expect(fields["commonNames"] as? String == "English oak, pedunculate oak")
            #expect(fields["leaf"] as? String == "auricled base")
            #expect(fields["acorn"] as? String == "long peduncle")
            #expect(fields["bark"] as? String == "fissured")
            #expect(fields["twigs"] as? String == "glabrous")
            #expect(fields["buds"] as? String == "clustered")
            #expect(fields["form"] as? String == "large tree")
            #expect(fields["rangeHabitat"] as? String == "Europe")
            #expect(fields["fieldNotes"] as? String == "parkland")
            #expect(fields["resources"] as? String == "https://example.org/robur")
        }
    }

    @Test("an existing database's source-3 rows become notes with UUIDs stable across restarts")
    func legacyRowsBecomeNotes() async throws {
        let path = try makeLegacyFixture()
        let first = try await TestEnvironment(path: path)
        let ids = try await first.test { client in
            try await client.send(.get, "/api/v1/notes").array().compactMap { $0["id"] as? String }.sorted()
        }
        #expect(ids.count == 2)
        let restarted = try await TestEnvironment(path: path)
        let again = try await restarted.test { client in
            try await client.send(.get, "/api/v1/notes").array().compactMap { $0["id"] as? String }.sorted()
        }
        #expect(again == ids)
    }

    @Test("If-Match: the ETag from GET allows the write; a mismatch answers 412; without it last write wins")
    func ifMatch() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = try #require(try await client.send(.post, "/api/v1/notes", json: Self.albaNote).object()["id"] as? String)
            let etag = try #require(try await client.send(.get, "/api/v1/notes/\(id)").headers[.eTag])
            let matching = try await client.send(.put, "/api/v1/notes/\(id)", json: #"{"fields": {"bark": "one"}}"#, headers: [.ifMatch: etag])
            #expect(matching.status == .ok)
            let stale = try await client.send(.put, "/api/v1/notes/\(id)", json: #"{"fields": {"bark": "two"}}"#, headers: [.ifMatch: etag])
            #expect(stale.status == .preconditionFailed)
            #expect(try stale.error().code == "PRECONDITION_FAILED")
            let staleDelete = try await client.send(.delete, "/api/v1/notes/\(id)", headers: [.ifMatch: etag])
            #expect(staleDelete.status == .preconditionFailed)
            let any = try await client.send(.put, "/api/v1/notes/\(id)", json: #"{"fields": {"bark": "any"}}"#, headers: [.ifMatch: "*"])
            #expect(any.status == .ok)
            let unconditional = try await client.send(.put, "/api/v1/notes/\(id)", json: #"{"fields": {"bark": "three"}}"#)
            #expect(unconditional.status == .ok)
            #expect(((try unconditional.object()["fields"] as? [String: Any])?["bark"] as? String) == "three")
        }
    }

    @Test("an update that changes nothing keeps the note's version and updatedAt")
    func noOpUpdate() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let created = try await client.send(.post, "/api/v1/notes", json: Self.albaNote).object()
            env.clock.advance(60)
            let same = try await client.send(.patch, "/api/v1/notes/\(created["id"] as? String ?? "")", json: #"{"fields": {"leaf": "7-9 rounded lobes"}}"#)
                .object()
            #expect(same["version"] as? Int == created["version"] as? Int)
            #expect(same["updatedAt"] as? String == created["updatedAt"] as? String)
        }
    }
}

/// A legacy-layout database with two source-3 rows, for the notes tests.
func makeLegacyFixture() throws -> String {
    let path = temporaryDatabasePath("oak-legacy-notes", file: "oak_compendium.db")
    let queue = try GRDB.DatabaseQueue(path: path)
    try queue.write { db in
        try db.execute(
            sql: """
                CREATE TABLE taxa (name TEXT NOT NULL, level TEXT NOT NULL, parent TEXT, author TEXT, PRIMARY KEY (name, level));
                CREATE TABLE sources (id INTEGER PRIMARY KEY AUTOINCREMENT, source_type TEXT NOT NULL, name TEXT NOT NULL, url TEXT);
                CREATE TABLE oak_entries (scientific_name TEXT PRIMARY KEY, author TEXT, is_hybrid INTEGER NOT NULL DEFAULT 0,
                    subgenus TEXT, section TEXT, synonyms TEXT);
                CREATE TABLE species_sources (id INTEGER PRIMARY KEY AUTOINCREMENT, scientific_name TEXT NOT NULL, source_id INTEGER NOT NULL,
                    local_names TEXT, leaves TEXT, is_preferred INTEGER NOT NULL DEFAULT 0, UNIQUE(scientific_name, source_id));
                INSERT INTO sources (id, source_type, name) VALUES (1, 'website', 'iNaturalist'), (2, 'website', 'OotW'), (3, 'personal', 'Mine');
                INSERT INTO oak_entries (scientific_name, subgenus, section) VALUES ('alba', 'Quercus', 'Quercus'), ('rubra', 'Quercus', 'Lobatae');
                INSERT INTO species_sources (scientific_name, source_id, local_names, leaves, is_preferred)
                    VALUES ('alba', 3, '["white oak"]', 'lobed', 1), ('rubra', 3, '["red oak"]', 'bristle-tipped', 1), ('rubra', 1, NULL, 'x', 0);
                """)
    }
    return path
}
