import Foundation
import Hummingbird
import HummingbirdTesting
import OakModels
import Testing

/// Helpers for building push bodies and reading pulls.
enum SyncWire {
    static func change(
        _ id: String, op: String = "upsert", base: Int? = nil, at time: Date, species: String = "alba", bark: String? = nil
    ) -> String {
        let note = op == "delete" ? "null" : #"{"scientificName": "\#(species)", "fields": {"bark": \#(bark.map { "\"\($0)\"" } ?? "null")}}"#
        return
            #"{"id": "\#(id)", "op": "\#(op)", "baseVersion": \#(base.map(String.init) ?? "null"), "updatedAt": "\#(WireTime.formatPrecise(time))", "note": \#(note)}"#
    }

    static func batch(_ changes: [String]) -> String { #"{"changes": [\#(changes.joined(separator: ","))]}"# }
}

extension TestClientProtocol {
    /// Pushes a batch and returns its results.
    func push(_ changes: [String]) async throws -> [[String: Any]] {
        let response = try await send(.post, "/api/v1/sync/push", json: SyncWire.batch(changes))
        #expect(response.status == .ok, "push answered \(response.status): \(String(buffer: response.body))")
        return try #require(try response.object()["results"] as? [[String: Any]])
    }

    /// Pulls every page after `cursor`, returning the changes and the final cursor.
    func pullAll(since cursor: String? = nil, entities: String? = nil, limit: Int = 1000) async throws -> (changes: [[String: Any]], cursor: String) {
        var cursor = cursor
        var changes: [[String: Any]] = []
        while true {
            var query = "limit=\(limit)"
            if let cursor { query += "&since=\(cursor)" }
            if let entities { query += "&entities=\(entities)" }
            let page = try await send(.get, "/api/v1/sync/pull?\(query)").object()
            changes += page["changes"] as? [[String: Any]] ?? []
            cursor = page["cursor"] as? String
            if page["hasMore"] as? Bool != true { break }
        }
        return (changes, cursor ?? "0")
    }
}

@Suite("Sync endpoints")
struct SyncRoutesTests {
    /// Every mutating route, with what must then appear in a pull.
    static let mutations: [(name: String, method: HTTPRequest.Method, path: String, body: String?, entity: String, key: String, op: String)] = [
        ("create species", .post, "/api/v1/species", #"{"scientific_name": "syncia"}"#, "species", "syncia", "upsert"),
        ("update species", .put, "/api/v1/species/alba", #"{"author": "Linnaeus"}"#, "species", "alba", "upsert"),
        ("patch species", .patch, "/api/v1/species/robur", #"{"author": "L."}"#, "species", "robur", "upsert"),
        ("create taxon", .post, "/api/v1/taxa", #"{"name": "Albae", "level": "subsection", "parent": "Quercus"}"#, "taxa", "subsection/Albae", "upsert"),
        ("update taxon", .put, "/api/v1/taxa/section/Lobatae", #"{"notes": "red oaks"}"#, "taxa", "section/Lobatae", "upsert"),
        ("delete taxon", .delete, "/api/v1/taxa/subsection/Albae", nil, "taxa", "subsection/Albae", "delete"),
        ("create source", .post, "/api/v1/sources", #"{"source_type": "book", "name": "Flora"}"#, "sources", "4", "upsert"),
        ("update source", .put, "/api/v1/sources/4", #"{"year": 2001}"#, "sources", "4", "upsert"),
        ("create species source", .post, "/api/v1/species/alba/sources", #"{"source_id": 4, "leaves": "x"}"#, "notes", "", "upsert"),
        ("update species source", .put, "/api/v1/species/alba/sources/4", #"{"leaves": "y"}"#, "notes", "", "upsert"),
        ("delete species source", .delete, "/api/v1/species/alba/sources/4", nil, "notes", "", "delete"),
        ("delete source", .delete, "/api/v1/sources/4", nil, "sources", "4", "delete"),
        ("delete species", .delete, "/api/v1/species/syncia", nil, "species", "syncia", "delete"),
    ]

    @Test("every mutating route writes a change-log row that shows up in a pull")
    func everyMutationIsPulled() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            var cursor = try await client.pullAll().cursor
            for mutation in Self.mutations {
                let response = try await client.send(mutation.method, mutation.path, json: mutation.body)
                #expect(response.status.code < 300, "\(mutation.name) answered \(response.status)")
                let pulled = try await client.pullAll(since: cursor)
                cursor = pulled.cursor
                let match = pulled.changes.first {
                    $0["entity"] as? String == mutation.entity && $0["op"] as? String == mutation.op
                        && (mutation.key.isEmpty || $0["key"] as? String == mutation.key)
                }
                #expect(match != nil, "\(mutation.name) is missing from the pull: \(pulled.changes)")
            }
            // Notes and pushes are covered too.
            let note = try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "ilex"}"#).object()
            let id = try #require(note["id"] as? String)
            try await client.send(.put, "/api/v1/notes/\(id)", json: #"{"fields": {"bark": "dark"}}"#)
            let pushed = UUID().uuidString.lowercased()
            _ = try await client.push([SyncWire.change(pushed, at: env.clock.now, species: "suber", bark: "cork")])
            try await client.send(.delete, "/api/v1/notes/\(id)")
            let pulled = try await client.pullAll(since: cursor)
            let keys = pulled.changes.map { "\($0["op"] as? String ?? "")/\($0["key"] as? String ?? "")" }
            #expect(keys.contains("upsert/\(pushed)"))
            #expect(keys.contains("delete/\(id)"))
        }
    }

    @Test("deleting a species leaves tombstones for its notes too")
    func cascadeTombstones() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let note = try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "lyrata"}"#).object()
            let cursor = try await client.pullAll().cursor
            try await client.send(.delete, "/api/v1/species/lyrata")
            let changes = try await client.pullAll(since: cursor).changes
            #expect(changes.contains { $0["entity"] as? String == "notes" && $0["op"] as? String == "delete" && $0["key"] as? String == note["id"] as? String })
            #expect(changes.contains { $0["entity"] as? String == "species" && $0["op"] as? String == "delete" })
        }
    }

    @Test("pull returns changes in sequence order with full records, the next cursor and hasMore")
    func pullPaging() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let first = try await client.send(.get, "/api/v1/sync/pull?limit=20").object()
            let changes = try #require(first["changes"] as? [[String: Any]])
            #expect(changes.count == 20)
            #expect(first["hasMore"] as? Bool == true)
            let versions = changes.compactMap { $0["version"] as? Int }
            #expect(versions == versions.sorted())
            let species = try #require(changes.first { $0["entity"] as? String == "species" })
            #expect((species["record"] as? [String: Any])?["scientific_name"] as? String == species["key"] as? String)

            let cursor = try #require(first["cursor"] as? String)
            let second = try await client.send(.get, "/api/v1/sync/pull?limit=20&since=\(cursor)").object()
            let next = try #require(second["changes"] as? [[String: Any]])
            #expect((next.first?["version"] as? Int ?? 0) > (versions.last ?? 0))

            let caughtUp = try await client.pullAll()
            let end = try await client.send(.get, "/api/v1/sync/pull?since=\(caughtUp.cursor)").object()
            #expect((end["changes"] as? [Any])?.isEmpty == true)
            #expect(end["hasMore"] as? Bool == false)
            #expect(end["cursor"] as? String == caughtUp.cursor)
        }
    }

    @Test("no cursor means a full snapshot of the current state")
    func fullSnapshot() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = try #require(try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba"}"#).object()["id"] as? String)
            try await client.send(.delete, "/api/v1/notes/\(id)")
            try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "robur"}"#)
            let snapshot = try await client.pullAll().changes
            #expect(snapshot.allSatisfy { $0["op"] as? String == "upsert" })
            let speciesCount = snapshot.filter { $0["entity"] as? String == "species" }.count
            #expect(speciesCount == (try await env.count("SELECT COUNT(*) FROM oak_entries")))
            let notes = snapshot.filter { $0["entity"] as? String == "notes" }
            #expect(notes.count == 1)
            #expect((notes.first?["record"] as? [String: Any])?["scientificName"] as? String == "robur")
            #expect(snapshot.filter { $0["entity"] as? String == "sources" }.count == 3)
        }
    }

    @Test("entities selects which kinds of change a pull carries; unknown ones answer 400")
    func entitiesFilter() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba"}"#)
            let notes = try await client.pullAll(entities: "notes").changes
            #expect(notes.count == 1)
            let mixed = try await client.pullAll(entities: "taxa,sources").changes
            #expect(Set(mixed.compactMap { $0["entity"] as? String }) == ["taxa", "sources"])
            let bad = try await client.send(.get, "/api/v1/sync/pull?entities=trees")
            #expect(bad.status == .badRequest)
            #expect(try bad.invalidFields() == ["entities"])
        }
    }

    @Test(
        "tombstones older than the horizon are compacted (and a compaction with nothing to remove moves no data version); an older cursor answers 410 GONE, and each refusal says why in details.reason"
    )
    func compactionAndGone() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = try #require(try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba"}"#).object()["id"] as? String)
            let oldCursor = try await client.pullAll().cursor
            try await client.send(.delete, "/api/v1/notes/\(id)")
            // Nothing older than the horizon: nothing is written, and the data keeps its version (cached answers stay).
            let before = try await env.store.dataVersion()
            #expect(try await env.store.compact(olderThan: Date().addingTimeInterval(-60)) == 0)
            #expect(try await env.store.dataVersion() == before)
            let removed = try await env.store.compact(olderThan: Date().addingTimeInterval(60))
            #expect(removed == 1)
            #expect(try await env.count("SELECT COUNT(*) FROM change_log WHERE op = 'delete'") == 0)
            let gone = try await client.send(.get, "/api/v1/sync/pull?since=\(oldCursor)")
            #expect(gone.status == .gone)
            #expect(try gone.error().code == "GONE")
            #expect(try gone.error().details["reason"] as? String == "expired")
            let fresh = try await client.pullAll()
            #expect(try await client.send(.get, "/api/v1/sync/pull?since=\(fresh.cursor)").status == .ok)
            let database = try #require(fresh.cursor.split(separator: ".").first)
            let future = try await client.send(.get, "/api/v1/sync/pull?since=\(database).999999999")
            #expect(future.status == .gone)
            #expect(try future.error().details["reason"] as? String == "ahead")
            let otherDatabase = try await client.send(.get, "/api/v1/sync/pull?since=0123456789ab.5")
            #expect(otherDatabase.status == .gone)
            #expect(try otherDatabase.error().details["reason"] as? String == "other_database")
            let garbage = try await client.send(.get, "/api/v1/sync/pull?since=abc")
            #expect(garbage.status == .badRequest)
        }
    }

    @Test("/sync/changes is an alias of pull")
    func changesAlias() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let pull = try await client.send(.get, "/api/v1/sync/pull?entities=sources").object()
            let changes = try await client.send(.get, "/api/v1/sync/changes?entities=sources").object()
            #expect((pull["changes"] as? [Any])?.count == 3)
            #expect((changes["changes"] as? [Any])?.count == 3)
            #expect(pull["cursor"] as? String == changes["cursor"] as? String)
        }
    }

    @Test("push needs write auth")
    func pushAuth() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let response = try await client.send(
                .post, "/api/v1/sync/push", json: SyncWire.batch([SyncWire.change(UUID().uuidString, at: env.clock.now)]), key: nil)
            #expect(response.status == .unauthorized)
        }
    }

    @Test("a push of more than 500 changes answers 413")
    func pushTooLarge() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let changes = (0..<501).map { _ in SyncWire.change(UUID().uuidString, at: env.clock.now) }
            let response = try await client.send(.post, "/api/v1/sync/push", json: SyncWire.batch(changes))
            #expect(response.status == .contentTooLarge)
            #expect(try response.error().code == "PAYLOAD_TOO_LARGE")
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources") == 0)
        }
    }

    @Test("push answers applied with the new version, stale with the server copy, rejected with the error")
    func pushResults() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = UUID().uuidString.lowercased()
            let now = env.clock.now
            let results = try await client.push([
                SyncWire.change(id, at: now, bark: "first"),
                SyncWire.change(id, base: 0, at: now.addingTimeInterval(-60), bark: "older edit"),
                SyncWire.change(UUID().uuidString, at: now, species: "imaginaria"),
                #"{"id": "\#(UUID().uuidString)", "op": "upsert", "baseVersion": null, "updatedAt": "\#(WireTime.format(now))"}"#,
            ])
            #expect(results.compactMap { $0["status"] as? String } == ["applied", "stale", "rejected", "rejected"])
            let version = try #require(results[0]["version"] as? Int)
            #expect(version > 0)
            let staleNote = try #require(results[1]["note"] as? [String: Any])
            #expect((staleNote["fields"] as? [String: Any])?["bark"] as? String == "first")
            // A pushed change naming an unknown species is refused as the notes route refuses it: a validation error.
            #expect((results[2]["error"] as? [String: Any])?["code"] as? String == "VALIDATION_ERROR")
            #expect(try await client.send(.get, "/api/v1/notes/\(id)").object()["version"] as? Int == version)
        }
    }

    @Test("pushed notes name species as people write them (genus, an x for the hybrid sign, a missing sign): stored under the species' name")
    func pushNamesSpeciesAsWritten() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let now = env.clock.now
            let ids = (0..<4).map { _ in UUID().uuidString.lowercased() }
            let results = try await client.push([
                SyncWire.change(ids[0], at: now, species: "Quercus x bebbiana", bark: "genus and x"),
                SyncWire.change(ids[1], at: now, species: "bimundorum", bark: "no sign"),
                SyncWire.change(ids[2], at: now, species: "Q. alba", bark: "abbreviated genus"),
                SyncWire.change(ids[3], at: now, species: "x imaginaria", bark: "no such hybrid"),
            ])
            #expect(results.compactMap { $0["status"] as? String } == ["applied", "applied", "applied", "rejected"])
            let names = results.prefix(3).map { ($0["note"] as? [String: Any])?["scientificName"] as? String }
            #expect(names == ["× bebbiana", "× bimundorum", "alba"])
            let errors = try #require((results[3]["error"] as? [String: Any])?["details"] as? [String: Any])["errors"] as? [[String: Any]]
            #expect(errors?.compactMap { $0["field"] as? String } == ["scientificName"])
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE uuid = ?", [ids[3]]) == 0)
        }
    }

    @Test("a pushed note for an unknown source or a taken species and source is refused alone; the rest of the batch applies")
    func pushRefusesUnknownSourceAndTakenPair() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let now = env.clock.now
            let first = UUID().uuidString.lowercased()
            let unknownSource =
                #"{"id": "\#(UUID().uuidString)", "op": "upsert", "baseVersion": null, "updatedAt": "\#(WireTime.format(now))", "note": {"scientificName": "ilex", "sourceId": 9999, "fields": {}}}"#
            let results = try await client.push([
                SyncWire.change(first, at: now, bark: "first"),
                unknownSource,
                SyncWire.change(UUID().uuidString.lowercased(), at: now.addingTimeInterval(-1), bark: "second device, same pair"),
            ])
            #expect(results.compactMap { $0["status"] as? String } == ["applied", "rejected", "stale"])
            let error = try #require(results[1]["error"] as? [String: Any])
            #expect(error["code"] as? String == "VALIDATION_ERROR")
            let errors = try #require(error["details"] as? [String: Any])["errors"] as? [[String: Any]] ?? []
            #expect(errors.compactMap { $0["field"] as? String } == ["sourceId"], "\(error)")
            #expect((results[2]["note"] as? [String: Any])?["id"] as? String == first)
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE source_id = 9999") == 0)
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE scientific_name = 'alba' AND source_id = 3") == 1)
        }
    }

    @Test("a note deleted earlier in a batch frees its species and source for a new note later in the same batch")
    func pushReusesAPairFreedInTheBatch() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let now = env.clock.now
            let old = UUID().wireString
            let created = try await client.push([SyncWire.change(old, at: now.addingTimeInterval(-60), bark: "old")])
            let version = try #require(created.first?["version"] as? Int)
            let new = UUID().wireString
            let results = try await client.push([
                SyncWire.change(old, op: "delete", base: version, at: now.addingTimeInterval(-30)),
                SyncWire.change(new, at: now.addingTimeInterval(-20), bark: "new"),
                SyncWire.change(UUID().wireString, at: now.addingTimeInterval(-10), bark: "third, same pair"),
            ])
            #expect(results.compactMap { $0["status"] as? String } == ["applied", "applied", "stale"])
            #expect((results[2]["note"] as? [String: Any])?["id"] as? String == new)
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE scientific_name = 'alba' AND source_id = 3") == 1)
            let stored = try await client.send(.get, "/api/v1/notes/\(new)").object()
            #expect((stored["fields"] as? [String: Any])?["bark"] as? String == "new")
        }
    }

    @Test("a change whose baseVersion equals the server version fast-forwards whatever the clocks say")
    func fastForward() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = UUID().uuidString.lowercased()
            let now = env.clock.now
            let created = try await client.push([SyncWire.change(id, at: now, bark: "v1")])
            let version = try #require(created[0]["version"] as? Int)
            // The device clock is an hour behind, but it edited the version it had.
            let edited = try await client.push([SyncWire.change(id, base: version, at: now.addingTimeInterval(-3600), bark: "v2")])
            #expect(edited[0]["status"] as? String == "applied")
            let note = try await client.send(.get, "/api/v1/notes/\(id)").object()
            #expect((note["fields"] as? [String: Any])?["bark"] as? String == "v2")
        }
    }

    @Test("a true conflict is decided by last write wins on updatedAt, ties broken deterministically")
    func lastWriteWins() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = UUID().uuidString.lowercased()
            let t0 = env.clock.now.addingTimeInterval(-600)
            let created = try await client.push([SyncWire.change(id, at: t0, bark: "base")])
            let base = try #require(created[0]["version"] as? Int)
            // Device A edits at t0+10 and syncs first; device B edited at t0+20 from the same base: B is later and wins.
            let a = try await client.push([SyncWire.change(id, base: base, at: t0 + 10, bark: "A")])
            #expect(a[0]["status"] as? String == "applied")
            let b = try await client.push([SyncWire.change(id, base: base, at: t0 + 20, bark: "B")])
            #expect(b[0]["status"] as? String == "applied")
            // Device C edited at t0+15 from the old base: older than B, so the server copy wins.
            let c = try await client.push([SyncWire.change(id, base: base, at: t0 + 15, bark: "C")])
            #expect(c[0]["status"] as? String == "stale")
            #expect(((c[0]["note"] as? [String: Any])?["fields"] as? [String: Any])?["bark"] as? String == "B")
            // A tie on the timestamp: the greater content wins, whichever arrives first.
            let tieLow = try await client.push([SyncWire.change(id, base: base, at: t0 + 20, bark: "A")])
            #expect(tieLow[0]["status"] as? String == "stale")
            let tieHigh = try await client.push([SyncWire.change(id, base: base, at: t0 + 20, bark: "Z")])
            #expect(tieHigh[0]["status"] as? String == "applied")
        }
    }

    @Test("a delete is compared with updates by its own timestamp")
    func deleteTimestamp() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = UUID().uuidString.lowercased()
            let t0 = env.clock.now.addingTimeInterval(-600)
            let base = try #require(try await client.push([SyncWire.change(id, at: t0, bark: "base")])[0]["version"] as? Int)
            let edit = try await client.push([SyncWire.change(id, base: base, at: t0 + 30, bark: "edited")])
            #expect(edit[0]["status"] as? String == "applied")
            // A delete made before that edit loses; one made after wins.
            let early = try await client.push([SyncWire.change(id, op: "delete", base: base, at: t0 + 20)])
            #expect(early[0]["status"] as? String == "stale")
            let late = try await client.push([SyncWire.change(id, op: "delete", base: base, at: t0 + 40)])
            #expect(late[0]["status"] as? String == "applied")
            #expect(try await client.send(.get, "/api/v1/notes/\(id)").status == .notFound)
            // An edit older than the delete does not bring the note back; a newer one does.
            let resurrectOld = try await client.push([SyncWire.change(id, base: base, at: t0 + 35, bark: "old")])
            #expect(resurrectOld[0]["status"] as? String == "stale")
            let resurrectNew = try await client.push([SyncWire.change(id, base: base, at: t0 + 50, bark: "new")])
            #expect(resurrectNew[0]["status"] as? String == "applied")
        }
    }

    @Test(
        "case 1, a later delete beats an earlier revival: the second delete of a deleted note is a new version, so a revival based on the first tombstone does not fast-forward"
    )
    func secondDeleteMovesTombstone() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = UUID().uuidString.lowercased()
            let t0 = env.clock.now.addingTimeInterval(-600)
            let base = try #require(try await client.push([SyncWire.change(id, at: t0, bark: "base")])[0]["version"] as? Int)
            // A deletes at t0+10 and is answered with the tombstone's version T; B deletes at t0+30.
            let first = try await client.push([SyncWire.change(id, op: "delete", base: base, at: t0 + 10)])
            #expect(first[0]["status"] as? String == "applied")
            let tombstone = try #require(first[0]["version"] as? Int)
            let second = try await client.push([SyncWire.change(id, op: "delete", base: base, at: t0 + 30)])
            #expect(second[0]["status"] as? String == "applied")
            #expect(try #require(second[0]["version"] as? Int) > tombstone)
            // A brought the note back and edited it at t0+20 on top of T; that edit arrives last and loses.
            let between = try await client.push([SyncWire.change(id, base: tombstone, at: t0 + 20, bark: "between")])
            #expect(between[0]["status"] as? String == "stale")
            #expect(try await client.send(.get, "/api/v1/notes/\(id)").status == .notFound)
            // An older delete arriving last does not move the tombstone back.
            let older = try await client.push([SyncWire.change(id, op: "delete", base: base, at: t0 + 5)])
            #expect(older[0]["status"] as? String == "applied")
            let afterOlder = try await client.push([SyncWire.change(id, base: base, at: t0 + 25, bark: "still between")])
            #expect(afterOlder[0]["status"] as? String == "stale")
            let later = try await client.push([SyncWire.change(id, base: base, at: t0 + 40, bark: "later")])
            #expect(later[0]["status"] as? String == "applied")
        }
    }

    @Test("one batch naming a note twice applies both in order; the same change twice in a batch is applied once")
    func sameNoteTwiceInABatch() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = UUID().uuidString.lowercased()
            let t0 = env.clock.now.addingTimeInterval(-60)
            let create = SyncWire.change(id, at: t0, bark: "created")
            let results = try await client.push([create, SyncWire.change(id, at: t0 + 10, bark: "edited"), create])
            #expect(results.compactMap { $0["status"] as? String } == ["applied", "applied", "applied"])
            let first = try #require(results[0]["version"] as? Int)
            let second = try #require(results[1]["version"] as? Int)
            #expect(second > first)
            #expect(results[2]["version"] as? Int == first)
            // Each answer is the note as that change left it; the repeated change gets the first answer again.
            let barks = results.map { (($0["note"] as? [String: Any])?["fields"] as? [String: Any])?["bark"] as? String }
            #expect(barks == ["created", "edited", "created"])
            let stored = try await client.send(.get, "/api/v1/notes/\(id)").object()
            #expect((stored["fields"] as? [String: Any])?["bark"] as? String == "edited")
            #expect(try await env.count("SELECT COUNT(*) FROM sync_receipts") == 2)

            // A delete and an edit made after it, in one batch: the note is deleted, then back.
            let later = try await client.push([
                SyncWire.change(id, op: "delete", base: second, at: t0 + 20), SyncWire.change(id, at: t0 + 30, bark: "back"),
            ])
            #expect(later.compactMap { $0["status"] as? String } == ["applied", "applied"])
            #expect(try await client.send(.get, "/api/v1/notes/\(id)").status == .ok)
        }
    }

    @Test("resending an identical change returns the same result and changes nothing")
    func idempotentResend() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = UUID().uuidString.lowercased()
            let change = SyncWire.change(id, at: env.clock.now, bark: "once")
            let first = try await client.push([change])
            let cursor = try await client.pullAll().cursor
            let again = try await client.push([change])
            #expect(again[0]["status"] as? String == first[0]["status"] as? String)
            #expect(again[0]["version"] as? Int == first[0]["version"] as? Int)
            #expect(try await client.pullAll(since: cursor).changes.isEmpty)
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE uuid = ?", [id]) == 1)
        }
    }

    @Test("timestamps more than 15 minutes in the future are clamped to server time")
    func futureClamped() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let id = UUID().uuidString.lowercased()
            let results = try await client.push([SyncWire.change(id, at: env.clock.now.addingTimeInterval(86_400), bark: "from the future")])
            #expect((results[0]["note"] as? [String: Any])?["updatedAt"] as? String == WireTime.formatPrecise(env.clock.now))
            let near = UUID().uuidString.lowercased()
            let nearResults = try await client.push([SyncWire.change(near, at: env.clock.now.addingTimeInterval(120), species: "robur")])
            #expect((nearResults[0]["note"] as? [String: Any])?["updatedAt"] as? String == WireTime.formatPrecise(env.clock.now.addingTimeInterval(120)))
        }
    }

    @Test("two devices creating a note for the same species and source: the second gets stale with the server's note")
    func twoDevicesCreate() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let first = UUID().uuidString.lowercased()
            let second = UUID().uuidString.lowercased()
            _ = try await client.push([SyncWire.change(first, at: env.clock.now, bark: "device one")])
            let results = try await client.push([SyncWire.change(second, at: env.clock.now.addingTimeInterval(5), bark: "device two")])
            #expect(results[0]["status"] as? String == "stale")
            #expect((results[0]["note"] as? [String: Any])?["id"] as? String == first)
            #expect(try await env.count("SELECT COUNT(*) FROM species_sources WHERE scientific_name = 'alba'") == 1)
        }
    }

    @Test("a full snapshot pages to the end even after tombstones were compacted, and sees deletes made while paging")
    func pagedSnapshotAfterCompaction() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let doomed = try #require(try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba"}"#).object()["id"] as? String)
            try await client.send(.delete, "/api/v1/notes/\(doomed)")
            _ = try await env.store.compact(olderThan: Date().addingTimeInterval(60))
            let kept = try #require(try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "robur"}"#).object()["id"] as? String)

            let first = try await client.send(.get, "/api/v1/sync/pull?limit=5").object()
            var cursor = try #require(first["cursor"] as? String)
            try await client.send(.delete, "/api/v1/notes/\(kept)")
            var changes = first["changes"] as? [[String: Any]] ?? []
            while true {
                let page = try await client.send(.get, "/api/v1/sync/pull?limit=5&since=\(cursor)")
                #expect(page.status == .ok)
                let body = try page.object()
                changes += body["changes"] as? [[String: Any]] ?? []
                cursor = try #require(body["cursor"] as? String)
                if body["hasMore"] as? Bool != true { break }
            }
            #expect(!changes.contains { $0["key"] as? String == doomed })
            #expect(changes.last { $0["key"] as? String == kept }?["op"] as? String == "delete")
            #expect(try await client.send(.get, "/api/v1/sync/pull?since=\(cursor)").status == .ok)
        }
    }

    @Test("a species' taxonomy change is a change of its notes")
    func taxonomyChangeReachesNotes() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let note = try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "rubra"}"#).object()
            let cursor = try await client.pullAll(entities: "notes").cursor
            try await client.send(.put, "/api/v1/species/rubra", json: #"{"author": "L. (1753)"}"#)
            #expect(try await client.pullAll(since: cursor, entities: "notes").changes.isEmpty)
            try await client.send(.put, "/api/v1/species/rubra", json: #"{"subsection": "Rubrae"}"#)
            let changes = try await client.pullAll(since: cursor, entities: "notes").changes
            let record = try #require(changes.first?["record"] as? [String: Any])
            #expect((record["taxonomy"] as? [String: Any])?["subsection"] as? String == "Rubrae")
            #expect((record["version"] as? Int ?? 0) > (note["version"] as? Int ?? 0))
        }
    }

    @Test("a rejected change re-sent after its cause is fixed is applied")
    func rejectedThenFixed() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let change = SyncWire.change(UUID().uuidString.lowercased(), at: env.clock.now, species: "futura", bark: "x")
            #expect(try await client.push([change])[0]["status"] as? String == "rejected")
            try await client.send(.post, "/api/v1/species", json: #"{"scientific_name": "futura"}"#)
            #expect(try await client.push([change])[0]["status"] as? String == "applied")
        }
    }
}
