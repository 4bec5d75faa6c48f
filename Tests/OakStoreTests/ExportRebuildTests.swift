import Foundation
import GRDB
import NIOCore
import OakModels
import OakStore
import OakStoreKit
import OakTestBasics
import OakTestSupport
import Synchronization
import Testing

@testable import OakStoreSQLite

/// After a write the export is rebuilt from the previous one, rendering again only the species that changed;
/// the result must be what a build from nothing gives.
@Suite("Export rebuilds")
struct ExportRebuildTests {
    private func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    /// Builds the export, applies `change`, and checks the patched rebuild: the species it rendered again,
    /// and the same bytes and ETag as a build from nothing.
    private func expectRebuild(
        _ store: SQLiteStore, renders expected: Set<String>?, after change: () async throws -> Void
    ) async throws {
        let before = try await store.pool.read { db in try ExportLayout.build(db, after: nil) }
        try await change()
        let changed = try await store.pool.read { db in try ExportLayout.changedSpecies(db, since: before) }
        #expect(changed == expected)
        let (patched, fresh) = try await store.pool.read { db in
            (try ExportLayout.build(db, after: before), try ExportLayout.build(db, after: nil))
        }
        #expect(patched.body == fresh.body)
        #expect(patched.etag == fresh.etag)
        #expect(patched.etag != before.etag)
        // What the store serves after the write is the same document.
        #expect(try await store.export().body == fresh.body)
    }

    private func newStore() throws -> SQLiteStore {
        try temporaryStore("oak-rebuild")
    }

    @Test("editing, adding and deleting a note renders only its species again")
    func noteChanges() async throws {
        let store = try newStore()
        let note = try await store.createNote(NoteInput(scientificName: "alba", fields: try decode(NoteFieldsPatch.self, #"{"leaf": "lobed"}"#)))
        try await expectRebuild(store, renders: ["alba"]) {
            _ = try await store.updateNote(
                id: note.id, with: NoteInput(fields: try decode(NoteFieldsPatch.self, #"{"leaf": "deeply lobed"}"#)), expectedVersion: nil)
        }
        try await expectRebuild(store, renders: ["robur"]) {
            _ = try await store.createNote(NoteInput(scientificName: "robur"))
        }
        try await expectRebuild(store, renders: ["alba"]) {
            try await store.deleteNote(id: note.id, expectedVersion: nil)
        }
    }

    @Test("adding, changing and deleting a species renders only that species")
    func speciesChanges() async throws {
        let store = try newStore()
        try await expectRebuild(store, renders: ["zzz-new"]) {
            _ = try await store.createSpecies(try decode(SpeciesPatch.self, #"{"scientific_name": "zzz-new", "subgenus": "Quercus"}"#))
        }
        try await expectRebuild(store, renders: ["alba"]) {
            _ = try await store.updateSpecies(named: "alba", with: try decode(SpeciesPatch.self, #"{"section": "Lobatae"}"#))
        }
        _ = try await store.createNote(NoteInput(scientificName: "zzz-new"))
        try await expectRebuild(store, renders: ["zzz-new"]) {
            try await store.deleteSpecies(named: "zzz-new")
        }
    }

    @Test("a changed source, shown by every species it describes, rebuilds everything")
    func sourceChange() async throws {
        let store = try newStore()
        _ = try await store.createSpeciesSource(of: "alba", with: try decode(SpeciesSourcePatch.self, #"{"source_id": 1, "leaves": "lobed"}"#))
        try await expectRebuild(store, renders: nil) {
            _ = try await store.updateSource(id: 1, with: try decode(SourcePatch.self, #"{"name": "iNaturalist (renamed)"}"#))
        }
    }

    @Test("more changes than are worth patching rebuild everything")
    func manyChanges() async throws {
        let store = try newStore()
        try await expectRebuild(store, renders: nil) {
            try await store.pool.write { db in
                for index in 0...ExportLayout.maxChangesToPatch {
                    try db.execute(sql: "INSERT INTO oak_entries(scientific_name) VALUES (?)", arguments: ["generated-\(index)"])
                }
            }
        }
    }

    /// A document of the test's own.
    private struct CountedExport: BuiltExport {
        let version: Int64
        let body: ByteBuffer
        let etag: String
    }

    @Test("an export nobody asked for during the idle time is let go; the next request builds it again from nothing, the same")
    func idleExportIsReleased() async throws {
        let cache = ExportCache<CountedExport>()
        let builds = Mutex<[Bool]>([])
        let build: @Sendable (CountedExport?) async throws -> CountedExport = { previous in
            builds.withLock { $0.append(previous != nil) }
            return CountedExport(version: 7, body: ByteBuffer(string: "document"), etag: "\"seven\"")
        }
        #expect(await cache.release(ifIdleFor: .zero) == false)
        let first = try await cache.snapshot(at: 7, building: build)
        #expect(await cache.release(ifIdleFor: .seconds(60)) == false)
        _ = try await cache.snapshot(at: 7, building: build)
        #expect(builds.withLock { $0 } == [false])

        try await Task.sleep(for: .milliseconds(20))
        #expect(await cache.release(ifIdleFor: .milliseconds(10)))
        #expect(await cache.release(ifIdleFor: .zero) == false)
        let again = try await cache.snapshot(at: 7, building: build)
        #expect(builds.withLock { $0 } == [false, false])
        #expect(again.body == first.body && again.etag == first.etag)
    }
}
