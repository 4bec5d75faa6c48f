import Foundation
import OakClient
import OakModels
import OakStore
import OakSync

/// Where the notes commands read and write notes: the database file in local mode; in remote mode the
/// profile's sync cache (`~/.oak/cache/PROFILE.sqlite`), so a note written offline is kept and sent later.
public protocol NoteBook: Sendable {
    /// The species' name as stored; `OakError` not-found if the catalog has no such species.
    func speciesName(_ species: String) async throws -> String
    /// The notes of one source, optionally of one species, and a notice when they may be out of date.
    func notes(species: String?, sourceId: Int) async throws -> (notes: [Note], notice: String?)
    /// The species' note from the source, if it has one.
    func note(species: String, sourceId: Int) async throws -> Note?
    /// Writes the note's fields (creating the note if the species has none from the source).
    func save(species: String, sourceId: Int, fields: NoteFields) async throws -> NoteWrite
    /// Deletes the species' note from the source.
    func delete(species: String, sourceId: Int) async throws -> NoteWrite
}

/// What became of a note write.
public struct NoteWrite: Sendable {
    /// The note as written; nil after a delete.
    public var note: Note?
    /// Set when the write waits in the sync cache for the server: why it was not sent.
    public var queued: String?
}

/// The notes of a database file, written at once.
public struct LocalNoteBook: NoteBook {
    public let catalog: any CatalogAccess
    private var store: any NoteRepository { catalog }

    public init(catalog: any CatalogAccess) {
        self.catalog = catalog
    }

    public func speciesName(_ species: String) async throws -> String {
        try await catalog.species(named: species).scientificName
    }

    public func notes(species: String?, sourceId: Int) async throws -> (notes: [Note], notice: String?) {
        (try await store.notes(species: species, sourceId: sourceId), nil)
    }

    public func note(species: String, sourceId: Int) async throws -> Note? {
        try await store.notes(species: species, sourceId: sourceId).first
    }

    public func save(species: String, sourceId: Int, fields: NoteFields) async throws -> NoteWrite {
        let patch = NoteFieldsPatch(replacingWith: fields)
        guard let existing = try await note(species: species, sourceId: sourceId) else {
            return NoteWrite(note: try await store.createNote(NoteInput(scientificName: species, sourceId: sourceId, fields: patch)))
        }
        return NoteWrite(note: try await store.updateNote(id: existing.id, with: NoteInput(fields: patch), expectedVersion: existing.version))
    }

    public func delete(species: String, sourceId: Int) async throws -> NoteWrite {
        guard let existing = try await note(species: species, sourceId: sourceId) else {
            throw OakError.notFound("Note", "\(Species.normalizedName(species)) from source \(sourceId)")
        }
        try await store.deleteNote(id: existing.id, expectedVersion: existing.version)
        return NoteWrite()
    }
}

/// The notes of a server, kept in the profile's sync cache: every write is saved in the cache first and
/// then synced; with the server unreachable it stays queued for `oak sync`.
public struct SyncedNoteBook: NoteBook {
    public let repository: NotesRepository
    public let engine: SyncEngine

    /// Opens (creating if needed) the cache file for a server.
    public init(cache: URL, client: OakClient) throws {
        let settings = client.configuration
        // One quick retry: a command should not sit in backoff when the server is down.
        let configuration = SyncConfiguration(retry: RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(200), maxDelay: .seconds(1)))
        let device: OakDevice
        do {
            device = try OakDevice(
                storage: .file(cache.path),
                server: DeviceServer(baseURL: settings.baseURL, apiKey: settings.apiKey, transport: settings.transport, timeout: settings.timeout),
                connectivity: ProbeConnectivity(client: client), configuration: configuration)
        } catch {
            throw CLIError.failure("Cannot open the sync cache at \(cache.path): \(error)")
        }
        guard let engine = device.engine else { throw CLIError.failure("The sync cache at \(cache.path) has no server") }
        repository = device.notes
        self.engine = engine
    }

    /// The cache file of a profile: `~/.oak/cache/PROFILE.sqlite`.
    public static func cacheFile(profile: String, environment: [String: String]) -> URL {
        let name = String(profile.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        return Configuration.directory(environment: environment).appendingPathComponent("cache").appendingPathComponent("\(name).sqlite")
    }

    /// Pushes and pulls; the outcome is in the returned status.
    public func sync() async -> SyncStatus {
        await engine.sync()
    }

    /// Notes waiting to be sent, and when the cache last synced.
    public func pending() async throws -> (count: Int, lastSync: Date?) {
        (try await repository.pendingCount(), try await repository.store.lastSuccessfulSync())
    }

    public func notes(species: String?, sourceId: Int) async throws -> (notes: [Note], notice: String?) {
        let status = await sync()
        let notes = try await repository.notes(species: species, sourceId: sourceId).map(\.note)
        return (notes, status.state == .idle ? nil : try await staleNotice(status))
    }

    public func note(species: String, sourceId: Int) async throws -> Note? {
        _ = await sync()
        return try await local(species: species, sourceId: sourceId)?.note
    }

    public func save(species: String, sourceId: Int, fields: NoteFields) async throws -> NoteWrite {
        let name = try await speciesName(species)
        let id: UUID
        if let existing = try await local(species: name, sourceId: sourceId) {
            id = try await repository.update(id: existing.id, fields: fields).id
        } else {
            id = try await repository.create(scientificName: name, sourceId: sourceId, fields: fields).id
        }
        return try await sent(id)
    }

    public func delete(species: String, sourceId: Int) async throws -> NoteWrite {
        guard let existing = try await local(species: species, sourceId: sourceId) else {
            throw OakError.notFound("Note", "\(Species.normalizedName(species)) from source \(sourceId)")
        }
        return try await sent(try await repository.delete(id: existing.id).id)
    }

    // MARK: Helpers

    private func local(species: String, sourceId: Int) async throws -> LocalNote? {
        let name = try await repository.store.species(named: species)?.scientificName ?? Species.normalizedName(species)
        return try await repository.notes(species: name, sourceId: sourceId).first
    }

    /// The species' name as the cache knows it; once the cache holds the catalog, an unknown species is refused.
    public func speciesName(_ species: String) async throws -> String {
        if let cached = try await repository.store.species(named: species) { return cached.scientificName }
        if try await repository.store.cursor() != nil {
            throw OakError.notFound("Species", Species.normalizedName(species))
        }
        return Species.normalizedName(species)
    }

    /// Syncs after a write and says what became of note `id`: sent, queued (offline) or refused by the server.
    private func sent(_ id: UUID) async throws -> NoteWrite {
        let status = await sync()
        let current = try await repository.note(id: id)
        if let current, current.isRejected, let error = current.lastError {
            throw CLIError.invalid("The server refused the note (kept in the cache; edit it to try again): \(CLIError(error).description)")
        }
        return NoteWrite(note: current?.note, queued: status.state == .idle ? nil : Self.reason(status))
    }

    private static func reason(_ status: SyncStatus) -> String {
        status.state == .offline ? "the server cannot be reached" : "the sync failed: \(status.lastError ?? "unknown error")"
    }

    private func staleNotice(_ status: SyncStatus) async throws -> String {
        let reason = Self.reason(status)
        let lastSync = try await repository.store.lastSuccessfulSync().map { "last synced \(WireTime.format($0))" } ?? "never synced"
        return "Offline: \(reason); showing the local cache (\(lastSync)). Run 'oak sync' when the server is back."
    }
}

/// Reachability for a command: the server is reachable when `/health` answers at all.
struct ProbeConnectivity: Connectivity {
    let client: OakClient

    var isOnline: Bool {
        get async {
            do {
                _ = try await client.health()
                return true
            } catch {
                return error.status != nil
            }
        }
    }

    func changes() -> AsyncStream<Bool> {
        AsyncStream { $0.finish() }
    }
}
