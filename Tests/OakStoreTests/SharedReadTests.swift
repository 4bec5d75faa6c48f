import Foundation
import OakStorePostgres
import Synchronization
import Testing

@Suite("Shared reads of the change log's head")
struct SharedReadTests {
    @Test("callers that wait together share one read; each gets the value")
    func callersShareReads() async throws {
        let shared = SharedRead<Int>()
        let reads = Atomic<Int>(0)
        let read: @Sendable () async throws -> Int = {
            let number = reads.add(1, ordering: .relaxed).newValue
            try await Task.sleep(for: .milliseconds(50))
            return number
        }
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<40 { group.addTask { try await shared.value(read) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(values.count == 40)
        #expect(reads.load(ordering: .relaxed) <= 3, "40 concurrent callers took \(reads.load(ordering: .relaxed)) reads")
    }

    @Test("a caller never gets a read that started before it asked: a write committed before the call is seen")
    func neverAnOlderRead() async throws {
        let shared = SharedRead<Int>()
        let committed = Atomic<Int>(0)
        let read: @Sendable () async throws -> Int = {
            let seen = committed.load(ordering: .acquiring)
            try await Task.sleep(for: .milliseconds(200))
            return seen
        }
        let first = Task { try await shared.value(read) }
        try await Task.sleep(for: .milliseconds(50))
        committed.store(1, ordering: .releasing)
        let second = try await shared.value(read)
        #expect(second == 1)
        _ = try await first.value
    }

    @Test("a failed read fails its callers; the next call reads again")
    func failuresAreNotKept() async throws {
        struct Down: Error {}
        let shared = SharedRead<Int>()
        await #expect(throws: Down.self) { try await shared.value { throw Down() } }
        #expect(try await shared.value { 7 } == 7)
    }
}
