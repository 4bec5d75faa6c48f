import Foundation
import GRDB
import OakClient
import OakModels
import OakSync
import OakTestBasics
import OakTestSupport
import Testing

/// Passes requests to a real transport and, in pull pages, replaces the record of the change with key
/// `key` by one this client cannot read, and adds a change of an entity it does not know.
struct TamperingTransport: HTTPTransport {
    let base: any HTTPTransport
    let key: String

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        var response = try await base.send(request)
        guard request.url.path.hasSuffix("/sync/pull"),
            var page = try JSONSerialization.jsonObject(with: response.body) as? [String: Any],
            var changes = page["changes"] as? [[String: Any]]
        else { return response }
        for index in changes.indices where changes[index]["key"] as? String == key {
            changes[index]["record"] = ["scientific_name": 42, "is_hybrid": "perhaps"]
        }
        changes.append(["entity": "photos", "op": "upsert", "key": "p1", "version": 1, "record": [:] as [String: Any]])
        page["changes"] = changes
        response.body = try JSONSerialization.data(withJSONObject: page)
        return response
    }
}

@Suite("Real data through the SDK")
struct RealDataPullTests {
    @Test(
        "11 a first sync of real data: an over-long synonym is accepted; a malformed record and an unknown entity are set aside, logged in the status, and the rest is applied"
    )
    func realDataFirstSync() async throws {
        // Written into the file as another tool would: a SQLite server.
        try await LiveServer.run(backend: .sqlite) { server in
            let longSynonym = "Quercus " + String(repeating: "alba var. ", count: 70) + "repanda"
            #expect(longSynonym.count > 500)
            // Written as another tool (or an older server) wrote it: longer than the write rules allow.
            try await DatabaseQueue(path: server.database).write { db in
                try db.execute(
                    sql: "UPDATE oak_entries SET synonyms = ? WHERE scientific_name = 'macrocarpa'",
                    arguments: [String(decoding: try JSONEncoder().encode([longSynonym]), as: UTF8.self)])
            }
            let server = server
            _ = try await server.client().createNote(scientificName: "alba", fields: NoteFields())
            let repository = NotesRepository(
                store: try LocalStore(path: temporaryDirectory("oak-device").appendingPathComponent("device.db").path))
            let engine = SyncEngine(
                repository: repository,
                client: server.client(transport: TamperingTransport(base: makeDefaultTransport(), key: "rubra")),
                connectivity: ManualConnectivity(), configuration: testSyncConfiguration, sleeper: ScaledSleeper())
            await engine.sync()

            let status = await engine.status
            #expect(status.state == .idle, "\(status.lastError ?? "")")
            let setAside = status.setAside.map { "\($0.entity)/\($0.key)" }.sorted()
            #expect(setAside == ["photos/p1", "species/rubra"])
            #expect(status.setAside.first { $0.key == "rubra" }?.reason.contains("scientific_name") == true)

            let catalog = try await repository.store.allSpecies().map(\.scientificName)
            let total = try await server.store.listSpecies(filter: SpeciesFilter(), limit: 1000, offset: 0).pagination.total
            #expect(catalog.count == total - 1)
            #expect(!catalog.contains("rubra"))
            #expect(try await repository.store.species(named: "macrocarpa")?.synonyms == [longSynonym])
            #expect(try await repository.notes().map(\.scientificName) == ["alba"])
            #expect(try await repository.store.cursor() != nil)

            // The cursor moved on: the next sync pulls only what changed since, and the catalog stays.
            _ = try await server.client().createNote(scientificName: "velutina", fields: NoteFields())
            await engine.sync()
            #expect(try await repository.notes().map(\.scientificName).sorted() == ["alba", "velutina"])
            #expect(try await repository.store.allSpecies().count == total - 1)
        }
    }
}
