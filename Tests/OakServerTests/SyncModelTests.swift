import Foundation
import HummingbirdTesting
import OakModels
import OakTestSupport
import Testing

/// The reference last-write-wins model the server must agree with.
struct ReferenceModel {
    struct Entry {
        var species: String
        var fields: NoteFields
        var updatedAt: Date
        var version: Int64
        var deletedAt: Date?
        var isLive: Bool { deletedAt == nil }
    }

    var notes: [UUID: Entry] = [:]

    /// Later wins; on equal times the greater content wins; a delete (no content) loses ties.
    static func beats(_ time: Date, _ fields: NoteFields?, _ other: Date, _ otherFields: NoteFields?) -> Bool {
        time != other ? time > other : (fields?.tieBreakKey ?? "") > (otherFields?.tieBreakKey ?? "")
    }

    func liveNote(for species: String) -> UUID? {
        notes.first { $0.value.isLive && $0.value.species == species }?.key
    }

    /// The time a change is recorded at: the device's, clamped to five minutes ahead of the server, and when it
    /// was made on the version it names, a millisecond after that version's time at the earliest.
    func recordedTime(_ change: PushChange, now: Date) -> Date {
        let time = WireTime.milliseconds(change.updatedAt > now.addingTimeInterval(300) ? now : change.updatedAt)
        guard let entry = notes[change.id], change.baseVersion == entry.version else { return time }
        let base = entry.deletedAt ?? entry.updatedAt
        return time > base ? time : base.addingTimeInterval(0.001)
    }

    /// The expected status of a pushed change, given the model's state.
    func expectedStatus(_ change: PushChange, now: Date) -> PushStatus {
        let time = WireTime.milliseconds(change.updatedAt > now.addingTimeInterval(300) ? now : change.updatedAt)
        let entry = notes[change.id]
        switch change.op {
        case .delete:
            guard let entry, entry.isLive else { return .applied }
            return change.baseVersion == entry.version || Self.beats(time, nil, entry.updatedAt, entry.fields) ? .applied : .stale
        case .upsert:
            let body = change.note!
            if let entry, entry.isLive {
                return change.baseVersion == entry.version || Self.beats(time, body.fields, entry.updatedAt, entry.fields) ? .applied : .stale
            }
            if let entry, let deletedAt = entry.deletedAt, change.baseVersion != entry.version,
                !Self.beats(time, body.fields, deletedAt, nil)
            {
                return .stale
            }
            return liveNote(for: body.scientificName) == nil ? .applied : .stale
        }
    }

    /// Records an applied change.
    mutating func apply(_ change: PushChange, version: Int64, now: Date) {
        let time = recordedTime(change, now: now)
        switch change.op {
        case .delete:
            guard var entry = notes[change.id] else {
                // A delete of a note never seen leaves a tombstone: the create it follows may arrive later.
                notes[change.id] = Entry(species: "", fields: NoteFields(), updatedAt: time, version: version, deletedAt: time)
                return
            }
            if entry.isLive {
                entry.deletedAt = time
                entry.version = version
            } else if let deletedAt = entry.deletedAt, time > deletedAt {
                // A later delete of a deleted note moves its tombstone to its own time, as a new version.
                entry.deletedAt = time
                entry.version = version
            }
            notes[change.id] = entry
        case .upsert:
            let body = change.note!
            if let entry = notes[change.id], entry.isLive, change.baseVersion == entry.version, body.fields == entry.fields,
                change.updatedAt <= entry.updatedAt
            {
                return  // the same fields again from a slow clock: unchanged
            }
            notes[change.id] = Entry(species: body.scientificName, fields: body.fields, updatedAt: time, version: version, deletedAt: nil)
        }
    }
}

/// A replica kept current by incremental pulls.
struct PulledReplica {
    var notes: [String: Note] = [:]
    var cursor: String?

    mutating func catchUp(_ client: any TestClientProtocol) async throws {
        let pulled = try await client.pullAll(since: cursor, entities: "notes", limit: 7)
        for change in pulled.changes {
            let key = try #require(change["key"] as? String)
            if change["op"] as? String == "delete" {
                notes[key] = nil
            } else {
                notes[key] = try decodeNote(try #require(change["record"] as? [String: Any]))
            }
        }
        cursor = pulled.cursor
    }
}

extension Note {
    /// The note with its times as the REST routes give them (whole seconds).
    var toTheSecond: Note {
        var note = self
        note.updatedAt = WireTime.parse(WireTime.format(updatedAt))!
        return note
    }
}

func decodeNote(_ object: [String: Any]) throws -> Note {
    try JSONDecoder().decode(Note.self, from: JSONSerialization.data(withJSONObject: object))
}

@Suite("Sync model test")
struct SyncModelTests {
    static let species = ["alba", "robur", "rubra", "ilex", "suber", "petraea"]
    static let words = ["grey", "smooth", "ridged", "scaly", "dark", "pale"]

    @Test("randomized: three clients, REST writes and pushes with re-sends and stale edits converge to last-write-wins")
    func randomizedConvergence() async throws {
        let seed: UInt64 = 20_261_121
        let env = try await TestEnvironment()
        try await env.test { client in
            var random = SeededRandom(seed: seed)
            var model = ReferenceModel()
            var replica = PulledReplica()
            var knownVersions = Array(repeating: [UUID: Int64](), count: 3)
            var sentBatches: [(body: String, results: [[String: Any]])] = []

            func randomFields() -> NoteFields {
                let leaf = Bool.random(using: &random) ? nil : Self.words.randomElement(using: &random)
                return NoteFields(leaf: leaf, bark: Self.words.randomElement(using: &random))
            }

            for step in 0..<300 {
                env.clock.advance(1)
                let now = env.clock.now
                let device = Int.random(in: 0..<3, using: &random)
                let action = Int.random(in: 0..<10, using: &random)
                let context = Comment(rawValue: "seed \(seed), step \(step), device \(device), action \(action)")

                if action < 2 {
                    // REST create.
                    let name = Self.species.randomElement(using: &random)!
                    let response = try await client.send(
                        .post, "/api/v1/notes", json: #"{"scientificName": "\#(name)", "fields": {"bark": "\#(Self.words.randomElement(using: &random)!)"}}"#)
                    if model.liveNote(for: name) != nil {
                        #expect(response.status == .conflict, context)
                    } else {
                        #expect(response.status == .created, context)
                        let note = try decodeNote(try response.object())
                        model.notes[note.id] = .init(species: name, fields: note.fields, updatedAt: now, version: note.version, deletedAt: nil)
                        knownVersions[device][note.id] = note.version
                    }
                } else if action < 4, let id = model.notes.keys.sorted(by: { $0.uuidString < $1.uuidString }).randomElement(using: &random) {
                    // REST update or delete of a known note.
                    let live = model.notes[id]!.isLive
                    if action == 2 {
                        let bark = Self.words.randomElement(using: &random)!
                        let response = try await client.send(.put, "/api/v1/notes/\(id.uuidString)", json: #"{"fields": {"bark": "\#(bark)"}}"#)
                        #expect(response.status == (live ? .ok : .notFound), context)
                        // An update that changes nothing is not a new version.
                        if live, model.notes[id]!.fields.bark != bark {
                            let note = try decodeNote(try response.object())
                            model.notes[id]!.fields.bark = bark
                            model.notes[id]!.updatedAt = now
                            model.notes[id]!.version = note.version
                            #expect(note.fields == model.notes[id]!.fields, context)
                        }
                    } else {
                        let response = try await client.send(.delete, "/api/v1/notes/\(id.uuidString)")
                        #expect(response.status == (live ? .noContent : .notFound), context)
                        if live {
                            model.notes[id]!.deletedAt = now
                            let tombstone = try await client.pullAll(since: replica.cursor, entities: "notes").changes.last {
                                $0["key"] as? String == id.uuidString.lowercased()
                            }
                            model.notes[id]!.version = Int64(tombstone?["version"] as? Int ?? 0)
                        }
                    }
                } else if action < 9 {
                    // A push batch of one to four changes: new notes, edits from the device's (possibly stale) view, deletes.
                    var changes: [PushChange] = []
                    for _ in 0..<Int.random(in: 1...4, using: &random) {
                        let known = model.notes.keys.sorted(by: { $0.uuidString < $1.uuidString })
                        let id = (known.isEmpty || Int.random(in: 0..<4, using: &random) == 0) ? UUID() : known.randomElement(using: &random)!
                        let name = model.notes[id]?.species ?? Self.species.randomElement(using: &random)!
                        let skew = Int.random(in: 0..<20, using: &random) == 0 ? 900.0 : Double(Int.random(in: -30_000...10_000, using: &random)) / 1000
                        let isDelete = model.notes[id] != nil && Int.random(in: 0..<4, using: &random) == 0
                        changes.append(
                            PushChange(
                                id: id, op: isDelete ? .delete : .upsert, baseVersion: knownVersions[device][id],
                                updatedAt: now.addingTimeInterval(skew),
                                note: isDelete ? nil : PushedNote(scientificName: name, fields: randomFields())))
                    }
                    let body = String(decoding: try JSONEncoder().encode(PushRequest(changes: changes)), as: UTF8.self)
                    let response = try await client.send(.post, "/api/v1/sync/push", json: body)
                    let results = try #require(try response.object()["results"] as? [[String: Any]], context)
                    for (change, result) in zip(changes, results) {
                        let expected = model.expectedStatus(change, now: now)
                        #expect(result["status"] as? String == expected.rawValue, "\(context): change \(change.id) expected \(expected)")
                        let version = Int64(result["version"] as? Int ?? 0)
                        if expected == .applied, result["status"] as? String == "applied" {
                            model.apply(change, version: version, now: now)
                        }
                        knownVersions[device][change.id] = version
                    }
                    sentBatches.append((body, results))
                } else if let earlier = sentBatches.randomElement(using: &random) {
                    // The response of an earlier push was lost: the same batch is sent again.
                    let before = try await client.pullAll(since: replica.cursor, entities: "notes").cursor
                    let response = try await client.send(.post, "/api/v1/sync/push", json: earlier.body)
                    let results = try #require(try response.object()["results"] as? [[String: Any]], context)
                    #expect(results.map { $0["status"] as? String } == earlier.results.map { $0["status"] as? String }, context)
                    #expect(results.map { $0["version"] as? Int } == earlier.results.map { $0["version"] as? Int }, context)
                    #expect(try await client.pullAll(since: before, entities: "notes").changes.isEmpty, context)
                }
                try await replica.catchUp(client)
            }

            let server = try await client.send(.get, "/api/v1/notes").array().map(decodeNote)
            let serverByID = Dictionary(uniqueKeysWithValues: server.map { ($0.id, $0) })
            // (a) the server holds exactly the last-write-wins outcome.
            let live = model.notes.filter { $0.value.isLive }
            #expect(Set(serverByID.keys) == Set(live.keys), "seed \(seed)")
            for (id, entry) in live {
                let note = try #require(serverByID[id], "seed \(seed): note \(id) missing")
                #expect(note.fields == entry.fields, "seed \(seed): note \(id)")
                #expect(wire(note.updatedAt) == wire(entry.updatedAt), "seed \(seed): note \(id)")
                #expect(note.scientificName == entry.species)
            }
            // (b) a pull from no cursor reproduces the server state exactly.
            // The sync protocol carries times to the millisecond, the REST routes to the second.
            let snapshot = try await client.pullAll(entities: "notes").changes.map { try decodeNote(try #require($0["record"] as? [String: Any])) }
            #expect(Dictionary(uniqueKeysWithValues: snapshot.map { ($0.id, $0.toTheSecond) }) == serverByID, "seed \(seed)")
            // (c) incremental pulls after every step give the same state.
            #expect(
                replica.notes.mapValues(\.toTheSecond) == Dictionary(uniqueKeysWithValues: server.map { ($0.id.uuidString.lowercased(), $0) }),
                "seed \(seed)")
            // (d) no note is duplicated.
            #expect(Set(server.map(\.scientificName)).count == server.count, "seed \(seed)")
            #expect(server.count > 2, "the run should leave several notes")
        }
    }
}
