import Foundation
import GRDB
import OakModels
import OakSync
import Testing

@Suite("Local note storage")
struct LocalNoteStorageTests {
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
