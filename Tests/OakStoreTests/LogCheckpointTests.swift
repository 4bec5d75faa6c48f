import Foundation
import OakStore
import OakTestSupport
import Testing

@testable import OakStoreSQLite

/// The server's SQLite file checkpoints its write-ahead log in the background (`LogCheckpointer`).
@Suite("Write-ahead log checkpoints")
struct LogCheckpointTests {
    /// Writes `batches` transactions of 100 rows of 3 kB (about 300 kB of log each).
    private func write(_ store: SQLiteStore, batches: Range<Int>) async throws {
        let text = String(repeating: "x", count: 3000)
        for batch in batches {
            try await store.write { db in
                for row in 0..<100 {
                    try db.execute(sql: "INSERT INTO sync_state(key, value) VALUES (?, ?)", arguments: ["bulk-\(batch)-\(row)", text])
                }
            }
        }
    }

    private func bytes(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    }

    @Test("writes past a thousand pages of log reach the database file without closing it, and a store closed leaves no log")
    func backgroundCheckpoint() async throws {
        let store = try temporaryStore("checkpoint", seed: false)
        let before = bytes(store.path)
        try await write(store, batches: 0..<16)  // about 4.8 MB of log, past 1,000 pages
        // The checkpoint runs beside the writes; wait for it (at most 10 s).
        for _ in 0..<200 where bytes(store.path) < before + (3 << 20) { try await Task.sleep(for: .milliseconds(50)) }
        #expect(bytes(store.path) >= before + (3 << 20))
        try store.close()
        #expect(!FileManager.default.fileExists(atPath: store.path + "-wal"))
        let reopened = try SQLiteStore(path: store.path, seedStarterData: false)
        #expect(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sync_state WHERE key LIKE 'bulk-%'") } == 1600)
    }

    @Test("writes without a pause keep the log bounded: past two thousand pages the commit checkpoints itself")
    func logBoundedUnderSustainedWrites() async throws {
        let store = try temporaryStore("checkpoint", seed: false)
        try await write(store, batches: 0..<60)  // about 18 MB of log without checkpoints
        #expect(bytes(store.path + "-wal") < 12 << 20)
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sync_state WHERE key LIKE 'bulk-%'") } == 6000)
    }
}
