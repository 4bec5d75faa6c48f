import OakTestSupport
import Testing

@testable import OakStorePostgres

/// A pull's page is one statement whose hash join of the species need not keep the change log's order; the page is
/// put in sequence order before it is written, so a client always sees versions ascending.
@Suite("PostgreSQL pull page order", .timeLimit(.minutes(1)), .needsPostgres)
struct PostgresPullPageOrderTests {
    @Test("a page's rows come out in sequence order whatever order the database sent them in, and an ordered page as it was")
    func pageRowsInSequenceOrder() async throws {
        try await withPostgresSession { session in
            let shuffled = try await session.rows("SELECT seq::bigint, 'key ' || seq FROM unnest(ARRAY[7, 2, 9, 3]) seq")
            let sorted = PostgresStore.inSequence(shuffled.map { PostgresColumns($0) })
            #expect(sorted.map { $0.int(0) } == [2, 3, 7, 9])
            #expect(sorted.map { $0.string(1) } == ["key 2", "key 3", "key 7", "key 9"], "each row keeps its own columns")
            let ordered = try await session.rows("SELECT seq::bigint FROM generate_series(1, 5) seq")
            #expect(PostgresStore.inSequence(ordered.map { PostgresColumns($0) }).map { $0.int(0) } == [1, 2, 3, 4, 5])
        }
    }
}
