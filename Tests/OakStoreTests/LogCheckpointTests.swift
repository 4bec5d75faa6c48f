import Foundation
import GRDB
import OakStore
import OakTestBasics
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

    /// Batches of `write` making about `pages` pages of log.
    private func batches(past pages: Int32) -> Range<Int> {
        0..<(Int(pages) * 4096 / 300_000 + 4)
    }

    @Test("an answered write survives a power loss: a file store syncs its write-ahead log at every commit (synchronous = FULL), not only at checkpoints")
    func everyCommitIsSynced() async throws {
        let store = try temporaryStore("durable", seed: false)
        #expect(try await store.pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 2)
    }

    @Test("writes past the checkpoint's bound of log reach the database file without closing it, and a store closed leaves no log")
    func backgroundCheckpoint() async throws {
        let store = try temporaryStore("checkpoint", seed: false)
        let before = bytes(store.path)
        let batches = batches(past: LogCheckpointer.pagesBeforeCheckpoint)
        try await write(store, batches: batches)
        // The checkpoint runs beside the writes; wait for it (at most 10 s).
        let copied = Int(LogCheckpointer.pagesBeforeCheckpoint) * 4096 * 3 / 4
        for _ in 0..<200 where bytes(store.path) < before + copied { try await Task.sleep(for: .milliseconds(50)) }
        #expect(bytes(store.path) >= before + copied)
        try store.close()
        #expect(!FileManager.default.fileExists(atPath: store.path + "-wal"))
        let reopened = try SQLiteStore(path: store.path, seedStarterData: false)
        #expect(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sync_state WHERE key LIKE 'bulk-%'") } == batches.count * 100)
    }

    @Test("writes without a pause keep the log bounded: past twice the checkpoint's bound the commit checkpoints itself")
    func logBoundedUnderSustainedWrites() async throws {
        let store = try temporaryStore("checkpoint", seed: false)
        let bound = Int(LogCheckpointer.pagesBeforeCheckpointInCommit) * 4096
        // Three times the bound of log if nothing checkpointed.
        let batches = batches(past: LogCheckpointer.pagesBeforeCheckpointInCommit * 3)
        try await write(store, batches: batches)
        #expect(bytes(store.path + "-wal") < bound * 3 / 2)
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sync_state WHERE key LIKE 'bulk-%'") } == batches.count * 100)
    }
}
