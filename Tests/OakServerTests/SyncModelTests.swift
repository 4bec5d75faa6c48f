import Foundation
import HummingbirdTesting
import OakModels
import OakTestBasics
import OakTestSupport
import Testing

/// The reference model of the sync rule the server must agree with, written apart from `SyncRules`: per field,
/// the value written last (equal times: the greater text); a delete removes the note unless written after it,
/// and clears what was written before it; a change made on the stored version (from a client that names no
/// field times, as here) is timed after that version; every change to a tombstone is a new version.
struct ReferenceModel {
    struct Entry {
        var species: String
        var values: [NoteFields.Field: String] = [:]
        var times: [NoteFields.Field: Date] = [:]
        var writtenAt: Date
        var version: Int64
        var deletedAt: Date?
        var isLive: Bool { deletedAt == nil }

        var fields: NoteFields {
            var fields = NoteFields()
            for (field, value) in values { fields[field] = value }
            return fields
        }

        func time(of field: NoteFields.Field) -> Date { times[field] ?? writtenAt }

        /// A note written whole at `time`.
        init(species: String, fields: NoteFields, at time: Date, version: Int64) {
            self.species = species
            writtenAt = time
            self.version = version
            for field in NoteFields.Field.allCases {
                values[field] = fields[field]
                times[field] = time
            }
        }

        init(tombstoneAt time: Date, version: Int64) {
            species = ""
            writtenAt = time
            self.version = version
            deletedAt = time
        }
    }

    var notes: [UUID: Entry] = [:]

    func liveNote(for species: String) -> UUID? {
        notes.first { $0.value.isLive && $0.value.species == species }?.key
    }

    static func milliseconds(_ time: Date) -> Date { WireTime.milliseconds(time) }
    static func after(_ time: Date, _ seen: Date) -> Date { time > seen ? time : milliseconds(seen.addingTimeInterval(0.001)) }

    /// Weighs a pushed change as the rule says, records what it changed, and returns its expected status. A
    /// change that changed the note takes `version` (the server's answer) as the note's version.
    mutating func push(_ change: PushChange, now: Date, version: Int64) -> PushStatus {
        let time = Self.milliseconds(change.updatedAt > now.addingTimeInterval(900) ? now : change.updatedAt)
        let entry = notes[change.id]
        let madeOnIt = entry.map { change.baseVersion == $0.version } ?? false
        switch change.op {
        case .delete:
            guard var entry else {
                notes[change.id] = Entry(tombstoneAt: time, version: version)
                return .applied
            }
            if let deletedAt = entry.deletedAt {
                if time > deletedAt {
                    entry.deletedAt = time
                    entry.version = version
                    notes[change.id] = entry
                }
                return .applied
            }
            let at = madeOnIt ? Self.after(time, entry.writtenAt) : time
            if entry.writtenAt <= at {
                entry.deletedAt = at
                entry.version = version
                notes[change.id] = entry
                return .applied
            }
            // Cleared fields are written a millisecond after the delete: the delete wins a tie with a write.
            let clearedAt = Self.milliseconds(at.addingTimeInterval(0.001))
            var cleared = false
            for field in NoteFields.Field.allCases where entry.time(of: field) <= at {
                cleared = cleared || entry.values[field] != nil || entry.time(of: field) != clearedAt
                entry.values[field] = nil
                entry.times[field] = clearedAt
            }
            guard cleared else { return .stale }
            entry.version = version
            notes[change.id] = entry
            return .applied
        case .upsert:
            let body = change.note!
            guard let current = entry, current.isLive else {
                var incomingTime = time
                if let entry, madeOnIt { incomingTime = Self.after(time, entry.deletedAt!) }
                if let deletedAt = entry?.deletedAt, incomingTime <= deletedAt { return .stale }
                if liveNote(for: body.scientificName) != nil { return .stale }
                notes[change.id] = Entry(species: body.scientificName, fields: body.fields, at: incomingTime, version: version)
                return .applied
            }
            var merged = current
            for field in NoteFields.Field.allCases {
                var fieldTime = time
                if madeOnIt, body.fields[field] != current.values[field] { fieldTime = Self.after(time, current.writtenAt) }
                let (value, stored) = (body.fields[field], current.time(of: field))
                if fieldTime > stored || (fieldTime == stored && (value ?? "") > (current.values[field] ?? "")) {
                    merged.values[field] = value
                    merged.times[field] = fieldTime
                }
            }
            merged.writtenAt = max(current.writtenAt, madeOnIt ? Self.after(time, current.writtenAt) : time)
            if merged.values == current.values, merged.times == current.times, merged.writtenAt == current.writtenAt {
                return madeOnIt || body.fields == current.fields ? .applied : .stale
            }
            merged.version = version
            notes[change.id] = merged
            return .applied
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
    /// The note as the REST routes give it: its time to the second, no field times.
    var toTheSecond: Note {
        var note = self
        note.updatedAt = WireTime.parse(WireTime.format(updatedAt))!
        note.fieldTimes = [:]
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
                        model.notes[note.id] = .init(species: name, fields: note.fields, at: now, version: note.version)
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
                            let time = ReferenceModel.after(now, model.notes[id]!.writtenAt)
                            model.notes[id]!.values[.bark] = bark
                            model.notes[id]!.times[.bark] = time
                            model.notes[id]!.writtenAt = time
                            model.notes[id]!.version = note.version
                            #expect(note.fields == model.notes[id]!.fields, context)
                        }
                    } else {
                        let response = try await client.send(.delete, "/api/v1/notes/\(id.uuidString)")
                        #expect(response.status == (live ? .noContent : .notFound), context)
                        if live {
                            model.notes[id]!.deletedAt = ReferenceModel.after(now, model.notes[id]!.writtenAt)
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
                        let skew = Int.random(in: 0..<20, using: &random) == 0 ? 1_800.0 : Double(Int.random(in: -30_000...10_000, using: &random)) / 1000
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
                        let version = Int64(result["version"] as? Int ?? 0)
                        let expected = model.push(change, now: now, version: version)
                        #expect(result["status"] as? String == expected.rawValue, "\(context): change \(change.id) expected \(expected)")
                        knownVersions[device][change.id] = version
                    }
                    sentBatches.append((body, results))
                } else if let earlier = sentBatches.randomElement(using: &random) {
                    // The response of an earlier push was lost: the same batch is sent again.
                    let before = try await client.pullAll(since: replica.cursor, entities: "notes").cursor
                    let response = try await client.send(.post, "/api/v1/sync/push", json: earlier.body)
                    let results = try #require(try response.object()["results"] as? [[String: Any]], context)
                    // Each change gets the answer it got then while its note is at that version; once the note has
                    // moved on, `stale` with the note's version now.
                    let request = try JSONDecoder().decode(PushRequest.self, from: Data(earlier.body.utf8))
                    for (change, (result, first)) in zip(request.changes, zip(results, earlier.results)) {
                        let current = model.notes[change.id].map { Int($0.version) }
                        let moved = current != nil && current != first["version"] as? Int
                        #expect(result["status"] as? String == (moved ? "stale" : first["status"] as? String), context)
                        #expect(result["version"] as? Int == (moved ? current : first["version"] as? Int), context)
                    }
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
                #expect(wire(note.updatedAt) == wire(entry.writtenAt), "seed \(seed): note \(id)")
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
