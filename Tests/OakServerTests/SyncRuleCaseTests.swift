import Foundation
import HummingbirdTesting
import OakModels
import OakTestSupport
import Testing

/// The known ways the sync promise was broken, each as the pushes real devices make (after a timeout, a retry,
/// a slow clock or a restore), over HTTP, on the backend the suites run on (`OAK_TEST_STORE`).
@Suite("Sync rule: the known failure cases, over HTTP")
struct SyncRuleCaseTests {
    /// The names of `count` starter species, for notes of their own.
    private func speciesNames(_ client: any TestClientProtocol, _ count: Int) async throws -> [String] {
        Array(names(try await client.send(.get, "/api/v1/species?limit=\(count + 10)").data()).suffix(count))
    }

    @Test(
        "case 2, a delete that arrives before the create it follows: the delete of an id never seen leaves a tombstone, devices pull it, and the late create loses"
    )
    func deleteBeforeCreate() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = UUID().uuidString.lowercased()
            let t0 = env.clock.now.addingTimeInterval(-600)
            let cursor = try await client.pullAll(entities: "notes").cursor
            // The device created the note at t0 and deleted it at t0+10; the create's request timed out.
            let delete = try await client.push([SyncWire.change(id, op: "delete", at: t0 + 10)])
            #expect(delete[0]["status"] as? String == "applied")
            let tombstone = try #require(delete[0]["version"] as? Int)
            let pulled = try await client.pullAll(since: cursor, entities: "notes").changes
            #expect(pulled.contains { $0["key"] as? String == id && $0["op"] as? String == "delete" && $0["version"] as? Int == tombstone })
            // The create, delivered last, loses to the delete made after it; nothing is stored.
            let create = try await client.push([SyncWire.change(id, at: t0, bark: "created first, delivered last")])
            #expect(create[0]["status"] as? String == "stale")
            #expect(try await client.send(.get, "/api/v1/notes/\(id)").status == .notFound)
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE uuid = ?", [id]) == 0)
            // An edit made after the delete still brings the note back.
            let later = try await client.push([SyncWire.change(id, at: t0 + 20, bark: "made after the delete")])
            #expect(later[0]["status"] as? String == "applied")
        }
    }

    @Test(
        "a change sent again after its note moved on (the same delete re-sent by a second device, once the note was written again) is answered stale with the note as it stands, and changes nothing"
    )
    func resentChangeAfterNoteMovedOn() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = UUID().uuidString.lowercased()
            let t0 = env.clock.now.addingTimeInterval(-600)
            let created = try #require(try await client.push([SyncWire.change(id, at: t0, bark: "first")])[0]["version"] as? Int)
            // Two devices learned of the delete and each re-sends it, byte for byte the same change.
            let delete = SyncWire.change(id, op: "delete", base: created, at: t0 + 10)
            let first = try await client.push([delete])
            #expect(first[0]["status"] as? String == "applied")
            let tombstone = try #require(first[0]["version"] as? Int)
            // The same change again while the note is still at that tombstone: the same answer.
            let again = try await client.push([delete])
            #expect(again[0]["status"] as? String == "applied")
            #expect(again[0]["version"] as? Int == tombstone)
            // The note is written after the delete and lives again.
            let revived = try await client.push([SyncWire.change(id, base: tombstone, at: t0 + 20, bark: "written after the delete")])
            let live = try #require(revived[0]["version"] as? Int)
            let cursor = try await client.pullAll(entities: "notes").cursor
            // The second device's copy of the delete: not "applied" at the old tombstone, but the note as it is now.
            let late = try await client.push([delete])
            #expect(late[0]["status"] as? String == "stale")
            #expect(late[0]["version"] as? Int == live)
            #expect((late[0]["note"] as? [String: Any]).flatMap { $0["fields"] as? [String: Any] }?["bark"] as? String == "written after the delete")
            #expect(try await client.pullAll(since: cursor, entities: "notes").changes.isEmpty)
            #expect(try await client.send(.get, "/api/v1/notes/\(id)").status == .ok)
        }
    }

    @Test(
        "case 3, a slow clock does not turn history backwards: an edit made on v1 by a clock a minute slow beats an edit made before v1 by a device that never saw it"
    )
    func slowClock() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = UUID().uuidString.lowercased()
            let t0 = env.clock.now.addingTimeInterval(-600)
            let v0 = try #require(try await client.push([SyncWire.change(id, at: t0, bark: "v0")])[0]["version"] as? Int)
            let v1 = try #require(try await client.push([SyncWire.change(id, base: v0, at: t0 + 100, bark: "v1")])[0]["version"] as? Int)
            // A's clock is 60 s behind: it edits v1 at "+40". The edit is recorded after v1, not at +40.
            let a = try await client.push([SyncWire.change(id, base: v1, at: t0 + 40, bark: "A, after v1")])
            #expect(a[0]["status"] as? String == "applied")
            let recordedText = try #require((a[0]["note"] as? [String: Any])?["updatedAt"] as? String)
            let recorded = try #require(WireTime.parse(recordedText))
            #expect(recorded > t0 + 100)
            // B never saw v1 and edits v0 at +70: its edit was made before A's, and loses.
            let b = try await client.push([SyncWire.change(id, base: v0, at: t0 + 70, bark: "B, before v1")])
            #expect(b[0]["status"] as? String == "stale")
            #expect((try await client.send(.get, "/api/v1/notes/\(id)").object()["fields"] as? [String: Any])?["bark"] as? String == "A, after v1")
        }
    }

    @Test(
        "case 4, a restore is always seen: a cursor from before the restore is refused (410 other_database) even once the restored server wrote past it, and a push based on it applies nothing"
    )
    func restoreIsSeen() async throws {
        let env = try await TestEnvironment()
        let backup = try await env.backup()
        // After the backup: 5 notes written, and a device pulls them.
        let cursor = try await env.test { client in
            for name in try await speciesNames(client, 5) {
                #expect(try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "\#(name)"}"#).status == .created)
            }
            return try await client.pullAll(entities: "notes").cursor
        }
        try env.closeStore()
        let restored = try await TestEnvironment(restored: backup, clock: env.clock)
        try await restored.test { client in
            // 10 new notes: the restored log runs past the device's cursor.
            for name in try await speciesNames(client, 30).prefix(10) {
                #expect(try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "\#(name)"}"#).status == .created)
            }
            let pull = try await client.send(.get, "/api/v1/sync/pull?since=\(cursor)")
            #expect(pull.status == .gone)
            #expect(try pull.error().details["reason"] as? String == "other_database")
            let notes = try await restored.count("SELECT COUNT(*) FROM species_sources WHERE source_id = 3")
            let push = try await client.send(
                .post, "/api/v1/sync/push",
                json:
                    #"{"cursor": "\#(cursor)", "changes": [\#(SyncWire.change(UUID().uuidString, at: restored.clock.now, species: "ilex", bark: "based on the old history"))]}"#
            )
            #expect(push.status == .gone)
            #expect(try push.error().details["reason"] as? String == "other_database")
            #expect(try await restored.count("SELECT COUNT(*) FROM species_sources WHERE source_id = 3") == notes)
            // A pull from the start serves the restored history.
            #expect(try await client.send(.get, "/api/v1/sync/pull").status == .ok)
        }
    }

    @Test("a push's cursor is checked as a pull's: malformed is a 400 naming cursor, ahead of the log a 410 ahead, current applies")
    func pushCursorForms() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let cursor = try await client.pullAll(entities: "notes").cursor
            let change = SyncWire.change(UUID().uuidString, at: env.clock.now, species: "alba", bark: "x")
            let malformed = try await client.send(.post, "/api/v1/sync/push", json: #"{"cursor": "zz.1", "changes": [\#(change)]}"#)
            #expect(malformed.status == .badRequest)
            #expect(try malformed.invalidFields() == ["cursor"])
            let database = cursor.split(separator: ".")[0]
            let ahead = try await client.send(.post, "/api/v1/sync/push", json: #"{"cursor": "\#(database).99999999", "changes": [\#(change)]}"#)
            #expect(ahead.status == .gone)
            #expect(try ahead.error().details["reason"] as? String == "ahead")
            let current = try await client.send(.post, "/api/v1/sync/push", json: #"{"cursor": "\#(cursor)", "changes": [\#(change)]}"#)
            #expect(current.status == .ok)
        }
    }
}
