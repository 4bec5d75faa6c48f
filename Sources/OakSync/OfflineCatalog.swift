import Foundation
import GRDB
import OakModels

/// Catalog writes a device makes offline: species the catalog lacks, and sources. Each goes to the local
/// database marked pending, so lists show it at once; the `SyncEngine` pushes it before the notes that
/// use it. A source created here has a negative id until the server assigns one.
public final class OfflineCatalog: Sendable {
    public let store: LocalStore

    public init(store: LocalStore) {
        self.store = store
    }

    /// Adds a species the catalog lacks (validated as the server validates it); CONFLICT if it exists.
    @discardableResult
    public func createSpecies(_ patch: SpeciesPatch) async throws -> Species {
        let species = try Species(creating: patch)
        try await store.writer.write { db in
            if try (LocalStore.record(db, .species(species.scientificName)) as Species?) != nil {
                throw OakError(.conflict, "'\(species.scientificName)' is already in the catalog")
            }
            try LocalStore.saveRecord(db, .species(species.scientificName), species, status: .pendingUpload)
        }
        store.localWriteHappened()
        return species
    }

    /// Adds a source (validated as the server validates it) under a new negative id.
    @discardableResult
    public func createSource(_ patch: SourcePatch) async throws -> Source {
        let source = try await store.writer.write { db in
            let source = try Source(id: try LocalStore.nextLocalSourceID(db), creating: patch)
            try LocalStore.saveRecord(db, .source(source.id), source, status: .pendingUpload)
            return source
        }
        store.localWriteHappened()
        return source
    }

    /// Changes a source; NOT_FOUND if the catalog has no such source.
    @discardableResult
    public func updateSource(id: Int, with patch: SourcePatch) async throws -> Source {
        let source = try await store.writer.write { db in
            guard var source = try LocalStore.record(db, .source(id)) as Source? else {
                throw OakError.notFound("source", String(id))
            }
            try source.apply(patch)
            try LocalStore.saveRecord(db, .source(id), source, status: .pendingUpload)
            return source
        }
        store.localWriteHappened()
        return source
    }
}
