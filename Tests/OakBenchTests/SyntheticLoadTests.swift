import Foundation
import GRDB
import OakBench
import OakModels
import OakStore
import OakTestBasics
import OakTestSupport
import Testing

@testable import OakStoreSQLite

@Suite("Synthetic benchmark load")
struct SyntheticLoadTests {
    private func newStore() throws -> SQLiteStore {
        try temporaryStore("oak-load")
    }

    @Test("fills up to the requested totals, with extra observer sources, every row in the change log")
    func fillsUpToTotals() async throws {
        let store = try newStore()
        let load = SyntheticLoad(species: 120, speciesSources: 50, notes: 300)
        let summary = try await store.addSyntheticLoad(load)
        #expect(summary.sourcesAdded == 2)  // 300 notes over 120 species need 3 personal sources
        let counts = try await store.pool.read { db in
            try [
                "SELECT COUNT(*) FROM oak_entries", "SELECT COUNT(*) FROM species_sources WHERE source_id IN (1, 2)",
                "SELECT COUNT(*) FROM species_sources WHERE source_id NOT IN (1, 2)",
                "SELECT COUNT(*) FROM species_sources WHERE source_id = 3",
                "SELECT COUNT(*) FROM change_log WHERE entity = 'notes'",
            ].map { try Int.fetchOne(db, sql: $0) ?? -1 }
        }
        #expect(counts == [120, 50, 300, 120, 350])
        for species in try await store.listSpecies(filter: SpeciesFilter(), limit: 1000, offset: 0).data { try species.validate() }
        #expect(try await store.notes(species: nil, sourceId: 3).count == 120)
        #expect(try await store.searchSpecies(query: "oak", limit: 5).isEmpty == false)

        let again = try await store.addSyntheticLoad(load)
        #expect(again.speciesAdded + again.speciesSourcesAdded + again.notesAdded + again.sourcesAdded == 0)
    }

    @Test("the same load gives the same data")
    func deterministic() async throws {
        let load = SyntheticLoad(species: 110, speciesSources: 10, notes: 20)
        var snapshots: [[String]] = []
        for store in [try newStore(), try newStore()] {
            _ = try await store.addSyntheticLoad(load)
            snapshots.append(
                try await store.pool.read { db in
                    try String.fetchAll(db, sql: "SELECT scientific_name || '/' || source_id || '/' || uuid || '/' || leaves FROM species_sources ORDER BY id")
                })
        }
        #expect(snapshots[0] == snapshots[1])
        #expect(snapshots[0].count == 30)
    }
}
