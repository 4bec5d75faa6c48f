import Foundation
import OakModels
import Testing

@testable import OakSimulation

/// The sync simulator (`SyncSimulation`) over a few hundred seeds in every `swift test`; `scripts/simulate` runs it
/// over 10,000 in a release build (`oak-simulate`). `OAK_SIM_SEEDS` sets how many (300 unless told), from
/// `OAK_SIM_FIRST_SEED` (a new random one each run, printed); `OAK_SIM_SEED` runs one seed alone; `OAK_SIM_STEPS`
/// sets the steps per seed (else from 20 to 100, as the seed decides).
@Suite("Sync simulator")
struct SyncSimulationTests {
    static let defaultSeeds = 300

    @Test("every seed: devices writing offline, a network that loses, repeats, delays and reorders, skewed clocks and restores converge to the written rule")
    func seeds() async throws {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["OAK_SIM_SEEDS"].flatMap(Int.init) ?? Self.defaultSeeds
        let chosen = SyncSimulation.seeds(
            environment["OAK_SIM_SEED"].flatMap(UInt64.init), count: count, from: environment["OAK_SIM_FIRST_SEED"].flatMap(UInt64.init))
        let (seeds, first) = try #require(chosen, "OAK_SIM_SEEDS and OAK_SIM_FIRST_SEED give no range of seeds")
        if let first { print("Sync simulator: \(count) seeds from \(first) (OAK_SIM_FIRST_SEED=\(first) runs them again)") }
        let templates = try await SyncSimulation.makeTemplates()
        defer { try? FileManager.default.removeItem(at: templates.directory) }
        // One seed at a time per core: the simulator runs here beside every other suite, whose timing-sensitive
        // tests it must not starve of the shared task pool.
        let failures = try await SyncSimulation.run(
            seeds, steps: environment["OAK_SIM_STEPS"].flatMap(Int.init), perCore: 1, templates: templates)
        for failure in failures.prefix(3) { Issue.record(Comment(rawValue: failure)) }
        #expect(failures.isEmpty, "\(failures.count) of \(seeds.count) seeds broke the rule")
    }

    @Test("a server given back after a run (notes written, a species added, a backup restored) holds what a new copy of the template holds, table by table")
    func serverGivenBackHoldsTheTemplate() async throws {
        let templates = try await SyncSimulation.makeTemplates()
        defer { try? FileManager.default.removeItem(at: templates.directory) }
        let server = try templates.servers.take()
        _ = try await server.store.createNote(NoteInput(scientificName: "alba"))
        try await server.takeBackup()
        var patch = SpeciesPatch()
        patch.scientificName = .value("robur")
        _ = try await server.store.createSpecies(patch)
        try server.restore()
        _ = try await server.store.createNote(NoteInput(scientificName: "rubra"))
        server.clock.advance(milliseconds: 5000)
        #expect(try ServerTemplate(path: server.path).tables != templates.server.tables)

        try await templates.servers.giveBack(server)
        let again = try templates.servers.take()
        #expect(again === server)
        #expect(try ServerTemplate(path: again.path).tables == templates.server.tables)
        #expect(again.clock.now == SimulatedClock.start && !again.hasBackup)
    }
}
