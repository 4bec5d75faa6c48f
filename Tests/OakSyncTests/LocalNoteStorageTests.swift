import Foundation
import GRDB
import OakModels
import OakTestBasics
import OakTestSupport
import Testing

@testable import OakSync

@Suite("Local note storage")
struct LocalNoteStorageTests {
    @Test("a note saved on the device survives the phone shutting down at once: its database syncs every commit (synchronous = FULL)")
    func everyCommitIsSynced() async throws {
        let store = try LocalStore(path: temporaryDirectory("oak-durable").appendingPathComponent("device.db").path)
        #expect(try await store.writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 2)
    }

    @Test("dates are written in GRDB's own layout, so rows written by either compare and read the same")
    func datesInGRDBLayout() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let milliseconds = Int64.random(in: -2_000_000_000_000...32_503_680_000_000, using: &random)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let grdb = try #require(String.fromDatabaseValue(date.databaseValue))
            #expect(WireTime.formatSQL(date) == grdb, "\(milliseconds)")
        }
    }
}
