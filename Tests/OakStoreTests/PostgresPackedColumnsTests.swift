import OakStoreKit
import OakTestSupport
import Testing

@testable import OakStorePostgres

/// The pull reads a page's notes as one `ROW(…)` value a row; the reader of that value must give back each column
/// as the row's own columns would: text byte for byte, integers of every width, NULLs, and an empty text apart from NULL.
@Suite(
    "PostgreSQL rows packed into one value", .timeLimit(.minutes(1)),
    .needsPostgres)
struct PostgresPackedColumnsTests {
    @Test("a ROW value reads column by column as the columns selected one by one: text, integers, NULL and empty text")
    func packedRowReadsLikeItsColumns() async throws {
        let values = #"9007199254740993::bigint, 'Quercus × bebbiana, "white" oak'::text, NULL::text, ''::text, 42::int4, -7::int2, 'ümlaut ✓'"#
        try await withPostgresSession { session in
            let plain = PostgresColumns(try #require(try await session.row("SELECT \(values)")))
            let packedRow = try #require(try await session.row("SELECT ROW(\(values))"))
            let packed = try #require(PackedColumns(packedRow[0].bytes))
            for index: Int32 in 0..<7 {
                #expect(packed.isNull(index) == plain.isNull(index), "column \(index)")
                #expect(packed.string(index) == plain.string(index), "column \(index)")
            }
            for index: Int32 in [0, 4, 5] { #expect(packed.int(index) == plain.int(index), "column \(index)") }
            #expect(packed.int(0) == 9_007_199_254_740_993)
            #expect(packed.int(5) == -7)
            #expect(packed.isNull(2) && !packed.isNull(3) && packed.string(3) == "")
            #expect(PackedColumns(plain.row[1].bytes) == nil, "a text is not read as a row")
        }
    }
}
