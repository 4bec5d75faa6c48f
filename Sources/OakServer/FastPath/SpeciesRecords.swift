import Foundation
import HTTPTypes
import Hummingbird
import OakModels
import OakStore

/// `GET /species/{name}` answers held in memory, one per species: the record encoded once, with its ETag,
/// filled on a species' first read and dropped when its row changes (followed through the change log,
/// like the response cache). The response cache keeps answers per URL; this keeps them per species, so a
/// URL the cache has not seen (another spelling of the name, an extra query parameter) costs a dictionary
/// lookup instead of a database read and an encoding.
final class SpeciesRecords: FollowsChanges, @unchecked Sendable {
    struct Record {
        var body: ByteBuffer
        var etag: String
    }

    private let store: any SpeciesRepository & MaintenanceRepository
    private let changeReads: ChangeReads
    let lock = NSLock()
    /// By the name as requested: each spelling is its own key, since two spellings may be two stored species
    /// (`Species.storedSpellings`: the exact stored name wins).
    private var records: [String: Record] = [:]
    var follower = ChangeFollower()

    /// Follows the change log through `changeReads` (shared with the response cache), or reads of its own.
    init(store: any SpeciesRepository & MaintenanceRepository, changeReads: ChangeReads? = nil) {
        self.store = store
        self.changeReads = changeReads ?? ChangeReads(store.changes(after:))
    }

    /// The number of species held.
    var count: Int { lock.withLock { records.count } }

    /// The answer for a species: from memory, or read, encoded and kept. `knownVersion` is the data version
    /// when the request already read it.
    func response(named name: String, knownVersion: DataVersion? = nil) async throws -> Response {
        let version: DataVersion
        if let knownVersion { version = knownVersion } else { version = try await store.dataVersion() }
        let key = name
        let position = try await catchUp(to: version, reads: changeReads)
        let held = lock.withLock { records[key] }
        if let held { return Self.response(held) }
        let body = ByteBuffer(data: try WireJSON.encoder.encode(try await store.species(named: name)))
        let record = Record(body: body, etag: ResponseCacheMiddleware.etag(of: body))
        lock.withLock {
            // A record read while changes of its species were applied may be stale: it is not kept.
            if follower.isCurrent(filledAt: position, unlessAlteredBy: { changed, _ in Self.isAltered(named: key, by: changed) }) {
                records[key] = record
            }
        }
        return Self.response(record)
    }

    /// The record held for a species when the records are current at `version` (no change since to read), else
    /// nil: for an answer made without waiting (`CachedReads`).
    func heldRecord(named name: String, at version: DataVersion) -> Record? {
        lock.withLock { follower.isDue(for: version) ? nil : records[name] }
    }

    func drop(_ changed: DataChanges, listingMoved: Bool) {
        if changed.everything { return records.removeAll() }
        for key in records.keys where Self.isAltered(named: key, by: changed) { records[key] = nil }
    }

    /// Whether `changed` alters the record asked for as `name`: a change of that species' own row.
    static func isAltered(named name: String, by changed: DataChanges) -> Bool {
        changed.species.contains(DataChanges.bareName(name))
    }

    static func response(_ record: Record) -> Response {
        .json(record.body, headers: [.eTag: record.etag])
    }
}
