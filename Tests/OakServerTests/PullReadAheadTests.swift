import Foundation
import Hummingbird
import HummingbirdTesting
import OakModels
import OakStore
import OakStoreKit
import OakTestBasics
import Testing

@testable import OakServer

@Suite("Pull pages read ahead")
struct PullReadAheadTests {
    /// The pages of a whole pull made straight from the store, with no read-ahead: the bodies and the cursor
    /// each was asked for with.
    private func pagesFromStore(_ store: any ServedStore, limit: Int) async throws -> [(cursor: String?, body: ByteBuffer)] {
        var pages: [(cursor: String?, body: ByteBuffer)] = []
        var cursor: String?
        while true {
            let page = try await store.pull(cursor: cursor, limit: limit, entities: SyncEntity.allCases)
            pages.append((cursor, page.body))
            guard let following = page.following else { return pages }
            cursor = following
        }
    }

    /// The value of `oak_sync_pull_pages_read_ahead_total` for a result in the `/metrics` text (0 when absent).
    private func readAheadCount(_ metrics: String, _ result: String) -> Int {
        let prefix = #"oak_sync_pull_pages_read_ahead_total{result="\#(result)"} "#
        return metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
    }

    @Test("a pull of many pages is answered from pages read ahead, byte for byte the pages the store reads one at a time")
    func multiPagePullIsReadAhead() async throws {
        let env = try await TestEnvironment()
        let expected = try await pagesFromStore(env.store, limit: 7)
        #expect(expected.count > 3)
        try await env.test(.live) { client in
            for (index, page) in expected.enumerated() {
                let query = "limit=7" + (page.cursor.map { "&since=\($0)" } ?? "")
                let response = try await client.send(.get, "/api/v1/sync/pull?\(query)", key: nil)
                #expect(response.status == .ok)
                #expect(response.body == page.body, "page \(index) differs from the store's")
            }
            let metrics = String(buffer: try await client.send(.get, "/metrics").body)
            // Every page after the first was read ahead and answered; the last page has none after it.
            #expect(readAheadCount(metrics, "used") == expected.count - 1)
            #expect(readAheadCount(metrics, "discarded") == 0)
        }
    }

    @Test("a page read ahead is not answered once the data moved: a note edited meanwhile comes later, with its new text")
    func writeDiscardsThePageReadAhead() async throws {
        let env = try await TestEnvironment()
        for name in ["acuta", "acutissima", "agrifolia", "alba", "alnifolia"] {
            _ = try await env.store.createNote(NoteInput(scientificName: name))
        }
        let pages = try await pagesFromStore(env.store, limit: 5)
        // The first page after the first one that holds a note: its note will be edited between the requests.
        var found: (index: Int, noteID: String)?
        for (index, page) in pages.enumerated().dropFirst() where found == nil {
            let changes = try JSONSerialization.jsonObject(with: Data(buffer: page.body)) as? [String: Any]
            let note = (changes?["changes"] as? [[String: Any]])?.first { $0["entity"] as? String == "notes" && $0["op"] as? String == "upsert" }
            if let key = note?["key"] as? String { found = (index, key) }
        }
        let (index, noteID) = try #require(found)
        try await env.test(.live) { client in
            let before = pages[index - 1].cursor.map { "&since=\($0)" } ?? ""
            #expect(try await client.send(.get, "/api/v1/sync/pull?limit=5\(before)", key: nil).status == .ok)
            let edited = try await client.send(.patch, "/api/v1/notes/\(noteID)", json: #"{"fields":{"fieldNotes":"Edited while the pull ran"}}"#)
            #expect(edited.status == .ok)

            let page = try await client.send(.get, "/api/v1/sync/pull?limit=5&since=\(try #require(pages[index].cursor))", key: nil).object()
            let keys = (page["changes"] as? [[String: Any]] ?? []).compactMap { $0["key"] as? String }
            #expect(!keys.contains(noteID), "the page read before the edit was answered")

            let rest = try await client.pullAll(since: try #require(page["cursor"] as? String), limit: 5)
            let note = try #require(rest.changes.last { $0["key"] as? String == noteID }?["record"] as? [String: Any])
            #expect((note["fields"] as? [String: Any])?["fieldNotes"] as? String == "Edited while the pull ran")

            // At least the page read before the edit was let go. On PostgreSQL the instance may hear its own commit
            // (the change log's notification) after a later page was read ahead under the head it knew before: that
            // page is let go too and read again, never answered stale (the keys and the text above say so).
            let metrics = String(buffer: try await client.send(.get, "/metrics").body)
            #expect(readAheadCount(metrics, "discarded") >= 1)
        }
    }

    @Test("a pull's next two pages are read while its client takes one, and a pull reads no further than its next page while half the room is taken")
    func pagesAfterTheNextAreReadAhead() async throws {
        let env = try await TestEnvironment()
        let expected = try await pagesFromStore(env.store, limit: 3)
        #expect(expected.count > 5)
        let metrics = ServerMetrics(pool: { nil }, cachedBytes: { 0 })
        let pages = PullReadAhead(store: env.store, metrics: metrics, maxHeld: 4, maxWait: .seconds(3600), maxPageSize: 10, lead: 2)
        // The first page of a pull: its next page is read ahead, and the one after it as soon as its cursor is known.
        var page = try await pages.page(cursor: nil, limit: 3, entities: SyncEntity.allCases, knownVersion: nil)
        try await waitUntil { pages.waitingCount == 2 }
        // Another device's next page still finds room; the page after it does not, with half the room taken.
        _ = try await pages.page(cursor: nil, limit: 4, entities: SyncEntity.allCases, knownVersion: nil)
        try await waitUntil { pages.waitingCount == 3 }
        // The first device takes its second page: only its third waits now, with the other device's page.
        page = try await pages.page(cursor: try #require(page.following), limit: 3, entities: SyncEntity.allCases, knownVersion: nil)
        #expect(page.body == expected[1].body)
        #expect(pages.waitingCount == 2)
        // It takes its third: its fourth is read in the room that freed.
        page = try await pages.page(cursor: try #require(page.following), limit: 3, entities: SyncEntity.allCases, knownVersion: nil)
        #expect(page.body == expected[2].body)
        page = try await pages.page(cursor: try #require(page.following), limit: 3, entities: SyncEntity.allCases, knownVersion: nil)
        #expect(page.body == expected[3].body)
    }

    @Test("each backend reads as many pages of a pull ahead as it gains from: SQLite the next one, PostgreSQL the next two")
    func backendSetsTheLead() async throws {
        let env = try await TestEnvironment()
        let expected = try await pagesFromStore(env.store, limit: 3)
        #expect(expected.count > 5)
        let lead = env.backend == .postgres ? 2 : 1
        #expect(env.store.pullPagesReadAhead == lead)
        let metrics = ServerMetrics(pool: { nil }, cachedBytes: { 0 })
        let pages = PullReadAhead(store: env.store, metrics: metrics, maxHeld: 4, maxWait: .seconds(3600), maxPageSize: 10)
        let page = try await pages.page(cursor: nil, limit: 3, entities: SyncEntity.allCases, knownVersion: nil)
        try await waitUntil { pages.waitingCount == lead }
        // Given time, no further page is read while the client has not taken the next.
        try await Task.sleep(for: .milliseconds(300))
        #expect(pages.waitingCount == lead)
        let next = try await pages.page(cursor: try #require(page.following), limit: 3, entities: SyncEntity.allCases, knownVersion: nil)
        #expect(next.body == expected[1].body)
    }

    /// Waits for a condition of pages read in the background, failing after a generous bound.
    private func waitUntil(_ condition: () -> Bool) async throws {
        #expect(
            try await eventually(within: .seconds(20), every: .milliseconds(5), condition), "the pages read ahead did not reach the expected state")
    }

    @Test("pulls abandoned halfway leave at most a few pages waiting, let go once they waited too long; large pages are not read ahead")
    func abandonedPullsAreBounded() async throws {
        let env = try await TestEnvironment()
        let metrics = ServerMetrics(pool: { nil }, cachedBytes: { 0 })
        let pages = PullReadAhead(store: env.store, metrics: metrics, maxHeld: 2, maxWait: .seconds(3600), maxPageSize: 10)
        // Three clients each take a first page and stop: two next pages are read ahead, the third is not.
        for limit in [3, 4, 5] {
            _ = try await pages.page(cursor: nil, limit: limit, entities: SyncEntity.allCases, knownVersion: nil)
        }
        #expect(pages.waitingCount == 2)
        // A page larger than `maxPageSize` is answered, and the next is not read.
        let large = try await pages.page(cursor: nil, limit: 11, entities: SyncEntity.allCases, knownVersion: nil)
        #expect(large.following != nil)
        #expect(pages.waitingCount == 2)

        // A page that waited past `maxWait` is let go when another is read ahead in its place.
        let impatient = PullReadAhead(store: env.store, metrics: metrics, maxHeld: 2, maxWait: .zero)
        for limit in [3, 4, 5] {
            _ = try await impatient.page(cursor: nil, limit: limit, entities: SyncEntity.allCases, knownVersion: nil)
        }
        #expect(impatient.waitingCount == 1)
    }
}
