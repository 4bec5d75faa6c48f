import Foundation
import OakModels
import OakStore
import OakTestBasics
import OakTestSupport
import Testing

@testable import OakStorePostgres

/// A write through a PostgreSQL store reads what changed after its commit, for the catch-up of the answers held in
/// memory that it makes due (`ChangesAfterWrites`): that catch-up must get what a read from the database would give,
/// and never less than a version handed out needs.
@Suite("PostgreSQL: what changed, read by a write after its commit", .timeLimit(.minutes(1)), .needsPostgres)
struct PostgresChangesAfterWritesTests {
    /// A store on a new database whose change notifications arrive and whose caches are caught up, its URL and the
    /// position they are at.
    private func caughtUpStore() async throws -> (PostgresStore, String, Int64) {
        let (served, url) = try await temporaryStore(.postgres)
        let store = try #require(served as? PostgresStore)
        let position = try await store.changes(after: nil).head
        let known = try await eventually(within: .seconds(10)) {
            // Read and kept once notifications arrive.
            _ = try await store.dataVersion()
            return store.changeNotifications.knownHead == position
        }
        #expect(known, "the head is known")
        return (store, url, position)
    }

    /// What changed after `position`, read from the database.
    private func readFromDatabase(_ store: PostgresStore, after position: Int64) async throws -> DataChanges {
        try await store.read { session in try await PostgresStore.changes(session, after: position) }
    }

    @Test(
        "after a write through this instance, the catch-up from where the caches were gets the write's changes as the write read them, equal to a read from the database"
    )
    func catchUpAfterAWriteHereIsTheWritesRead() async throws {
        let (store, _, position) = try await caughtUpStore()
        _ = try await store.createNote(NoteInput(scientificName: "alba"))
        let kept = try #require(
            await store.changesAfterWrites.changes(after: position, reaching: store.changeNotifications.highestHead), "the write kept what it read")
        #expect(kept.speciesWithChangedRows == ["alba"])
        #expect(kept.head > position)
        #expect(try await readFromDatabase(store, after: position) == kept)
        #expect(try await store.changes(after: position) == kept)
        #expect(try await store.dataVersion().changeLogHead == kept.head, "the write left the head it read known")
    }

    @Test(
        "a catch-up from a position past where the last write's read began is answered by that read: every change after the position, and those before it again, never fewer"
    )
    func catchUpPastTheReadsStartTakesIt() async throws {
        let (store, _, position) = try await caughtUpStore()
        // No catch-up between the two writes: both read what changed after `position`.
        let first = try await store.createNote(NoteInput(scientificName: "alba"))
        let second = try await store.createNote(NoteInput(scientificName: "robur"))
        let highestHead = store.changeNotifications.highestHead
        #expect(highestHead == second.version, "the second write left its head known")
        let kept = try #require(
            await store.changesAfterWrites.changes(after: first.version, reaching: highestHead), "the second write's read answered it")
        let fromDatabase = try await readFromDatabase(store, after: first.version)
        #expect(fromDatabase.speciesWithChangedRows == ["robur"])
        #expect(kept.speciesWithChangedRows == ["alba", "robur"], "the read holds the first write's change too")
        #expect(kept.head == fromDatabase.head && kept.listingVersion == fromDatabase.listingVersion)
        #expect(try await store.changes(after: first.version) == kept)
    }

    @Test("a write's read does not answer a catch-up that needs a later write through another instance: the catch-up reads it from the database")
    func laterWriteElsewhereIsReadFromTheDatabase() async throws {
        let (store, url, position) = try await caughtUpStore()
        let other = try await PostgresStore(url: url, seedStarterData: false)
        defer { other.close() }
        _ = try await store.createNote(NoteInput(scientificName: "alba"))
        let elsewhere = try await other.createNote(NoteInput(scientificName: "robur"))
        #expect(
            try await eventually(within: .seconds(10)) { (store.changeNotifications.highestHead ?? 0) >= elsewhere.version },
            "this instance heard the other's write")
        let changes = try await store.changes(after: position)
        #expect(changes.speciesWithChangedRows == ["alba", "robur"])
        #expect(changes == (try await readFromDatabase(store, after: position)))
    }

    @Test(
        "with the caches at the highest head known, a catch-up is answered nothing without a read; once another instance's write is heard, it is read from the database"
    )
    func nothingPastTheHighestHeadUntilAWriteElsewhere() async throws {
        let (store, url, position) = try await caughtUpStore()
        let nothing = try await store.changes(after: position)
        #expect(nothing.head == position && nothing.isEmpty)
        let other = try await PostgresStore(url: url, seedStarterData: false)
        defer { other.close() }
        let elsewhere = try await other.createNote(NoteInput(scientificName: "robur"))
        #expect(
            try await eventually(within: .seconds(10)) { (store.changeNotifications.highestHead ?? 0) >= elsewhere.version },
            "this instance heard the other's write")
        let changes = try await store.changes(after: position)
        #expect(changes.speciesWithChangedRows == ["robur"])
        #expect(changes.head == elsewhere.version)
    }

    @Test(
        "a write reads what changed after its commit only while the catch-up is close behind the head known: a run of writes nobody reads after costs no reads")
    func writeReadsOnlyWhileTheCatchUpFollows() {
        let kept = ChangesAfterWrites()
        #expect(!kept.readsAfterWrite(startingAt: 10), "before any catch-up")
        kept.answered(DataChanges(head: 10, listingVersion: 1))
        #expect(kept.readsAfterWrite(startingAt: 10))
        #expect(kept.readsAfterWrite(startingAt: 10 + ChangesAfterWrites.longestLag))
        #expect(!kept.readsAfterWrite(startingAt: 11 + ChangesAfterWrites.longestLag))
        #expect(!kept.readsAfterWrite(startingAt: nil), "the head not known")
    }
}
