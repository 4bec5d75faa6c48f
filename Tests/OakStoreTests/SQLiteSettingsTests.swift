import GRDBSQLite
import OakSQLite
import OakStoreSQLite
import Testing

@Suite("SQLite settings")
struct SQLiteSettingsTests {
    @Test("SQLite keeps no memory statistics, so allocations on different databases never queue on one process-wide lock")
    func memoryStatisticsOff() async throws {
        let store = try SQLiteStore.inMemory()
        _ = try? await store.species(named: "alba")
        #expect(SQLiteSettings.apply())
        // With the statistics on, SQLite counts every byte the store's connection holds; off, it counts none.
        #expect(sqlite3_memory_used() == 0)
    }
}
