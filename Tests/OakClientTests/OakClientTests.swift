import Foundation
import OakClient
import OakModels
import OakTestSupport
import Testing

@Suite("OakClient against a live server")
struct OakClientTests {
    @Test("Typed reads of species, taxa, sources and species-sources")
    func typedReads() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            #expect(try await client.health().status == "ok")
            #expect(try await client.health().version == .current)
            let page = try await client.listSpecies(limit: 5)
            #expect(page.data.count == 5)
            let name = page.data[0].scientificName
            #expect(try await client.species(named: name).scientificName == name)
            #expect(try await client.speciesFull(named: name).species.scientificName == name)
            #expect(try await client.searchSpecies(query: name).data.contains { $0.scientificName == name })
            #expect(try await !client.listTaxa(level: .subgenus).data.isEmpty)
            let sources = try await client.listSources()
            #expect(try await client.source(id: sources[0].id) == sources[0])
            #expect(try await client.speciesSources(of: name).allSatisfy { $0.scientificName == name })
        }
    }

    @Test("Note CRUD round trip, with the key sent on writes")
    func notesCRUD() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            let name = try await client.listSpecies(limit: 1).data[0].scientificName
            let created = try await client.createNote(scientificName: name, fields: NoteFields(leaf: "lobed"))
            #expect(try await client.note(id: created.id).fields.leaf == "lobed")
            let updated = try await client.updateNote(id: created.id, fields: NoteFields(leaf: "entire"), expectedVersion: created.version)
            #expect(updated.fields.leaf == "entire")
            #expect(try await client.notes(species: name).map(\.id) == [created.id])
            try await client.deleteNote(id: created.id)
            await #expect(throws: OakClientError.self) { try await client.note(id: created.id) }
        }
    }

    @Test("Errors carry the status, the envelope with field details, and Retry-After")
    func typedErrors() async throws {
        try await LiveServer.run { server in
            do {
                _ = try await server.client().createNote(scientificName: "nonexistentus", fields: NoteFields())
                Issue.record("expected an unknown-species error")
            } catch let error as OakClientError {
                #expect(error.status == 400)
                #expect(error.serverError?.code == .validationError)
                #expect(error.serverError?.fieldErrors.map(\.field) == ["scientificName"])
                #expect(!error.isTransient)
            }
            do {
                _ = try await server.client(key: "wrong").createNote(scientificName: "alba", fields: NoteFields())
                Issue.record("expected 401")
            } catch let error as OakClientError {
                #expect(error.status == 401)
                #expect(error.serverError?.code == .unauthorized)
            }
            let network = FaultyTransport(seed: 7)
            network.faults.rateLimited = 1
            do {
                _ = try await server.client(transport: network).health()
                Issue.record("expected 429")
            } catch let error as OakClientError {
                #expect(error.status == 429)
                #expect(error.retryAfter == .seconds(1))
                #expect(error.isTransient)
            }
        }
    }

    @Test("Export with an ETag answers not-modified until the data changes")
    func exportETag() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            guard case .modified(let body, let etag?) = try await client.export() else {
                Issue.record("expected an export with an ETag")
                return
            }
            #expect(!body.isEmpty)
            guard case .notModified = try await client.export(ifNoneMatch: etag) else {
                Issue.record("expected not-modified")
                return
            }
        }
    }

    @Test("Pull and push through the typed sync calls")
    func syncCalls() async throws {
        try await LiveServer.run { server in
            let client = server.client()
            let name = try await client.listSpecies(limit: 1).data[0].scientificName
            let change = PushChange(
                id: UUID(), op: .upsert, baseVersion: nil, updatedAt: Date(),
                note: PushedNote(scientificName: name, fields: NoteFields(bark: "furrowed")))
            let first = try await client.push([change])
            #expect(first.results.map(\.status) == [.applied])
            #expect(try await client.push([change]).results == first.results)
            let pulled = try await client.pull(since: nil, entities: [.notes])
            #expect(pulled.changes.contains { $0.key == change.id.uuidString.lowercased() })
            await #expect(throws: OakClientError.self) { try await client.pull(since: "999999999") }
        }
    }

    @Test("Auth verify names the key's owner and abilities, and answers nil for a key the server rejects")
    func verifyKey() async throws {
        try await LiveServer.run { server in
            let verified = try await server.client().verifyKey()
            #expect(verified == VerifiedKey(name: "owner", abilities: [.admin]))
            let (_, secret) = try await server.store.createToken(name: "phone", abilities: [.notesWrite])
            #expect(try await server.client(key: secret).verifyKey() == VerifiedKey(name: "phone", abilities: [.notesWrite]))
            #expect(try await server.client(key: "not-a-key").verifyKey() == nil)
        }
    }

    @Test("Backup writes a snapshot on the server for an admin key and is refused (403) for a notes key")
    func backup() async throws {
        try await LiveServer.run(backend: .sqlite) { server in
            let info = try await server.client().backup()
            #expect(info.filename.hasPrefix("oak-") && info.filename.hasSuffix(".db"))
            #expect(info.size > 0)
            let (_, secret) = try await server.store.createToken(name: "phone", abilities: [.notesWrite])
            let refused = await #expect(throws: OakClientError.self) { try await server.client(key: secret).backup() }
            #expect(refused?.status == 403)
        }
    }

    @Test(
        "Backup on a PostgreSQL server is refused (409) with the error envelope that names pg_dump",
        .needsPostgres)
    func backupOnPostgres() async throws {
        try await LiveServer.run(backend: .postgres) { server in
            let refused = await #expect(throws: OakClientError.self) { try await server.client().backup() }
            #expect(refused?.status == 409)
            #expect(refused?.serverError?.message.contains("pg_dump") == true)
        }
    }
}
