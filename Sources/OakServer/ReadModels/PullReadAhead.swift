import Foundation
import OakModels
import OakStore
import OakStoreKit

/// Reads the next page of a pull while the client takes in the page it was sent. A device's first sync is a
/// dozen pages asked for one after another, each once the one before is parsed and applied; with the next
/// page read meanwhile, it is ready (or partly read) when asked for, so the server's time overlaps the
/// client's instead of adding to it.
///
/// A page read ahead answers only the next request for its cursor, limit and entities, and only when the data
/// has not moved since it was started; otherwise the page is read again, as without read-ahead. At most
/// `maxHeld` pages wait at once (when that many do, no more are read ahead), and one that waited longer than
/// `maxWait` (its client stopped pulling) is let go. Pages larger than the default are not read ahead, so
/// what waits stays near a megabyte a page.
final class PullReadAhead: @unchecked Sendable {
    /// What a page answers: the same cursor, limit and entities get the same page of the same data.
    struct PageRequest: Hashable {
        var cursor: String
        var limit: Int
        var entities: [SyncEntity]
    }

    private struct Ahead {
        let request: PageRequest
        /// The data's version when the read started.
        let version: DataVersion
        let started: ContinuousClock.Instant
        let page: Task<PulledPage, any Error>
    }

    private let store: any EncodedRepository & MaintenanceRepository
    private let metrics: ServerMetrics
    private let lock = NSLock()
    /// Oldest first.
    private var waiting: [Ahead] = []
    let maxHeld: Int
    let maxWait: Duration
    let maxPageSize: Int

    init(
        store: any EncodedRepository & MaintenanceRepository, metrics: ServerMetrics, maxHeld: Int = 4, maxWait: Duration = .seconds(30),
        maxPageSize: Int = SyncController.defaultPullLimit
    ) {
        self.store = store
        self.metrics = metrics
        self.maxHeld = maxHeld
        self.maxWait = maxWait
        self.maxPageSize = maxPageSize
    }

    /// The number of pages read ahead and not yet asked for.
    var waitingCount: Int { lock.withLock { waiting.count } }

    /// The page after `cursor`: the one read ahead for it when the data has not moved since, else read now.
    /// When more follow, the next is read ahead. `knownVersion` is the data version when the request already
    /// read it.
    func page(cursor: String?, limit: Int, entities: [SyncEntity], knownVersion: DataVersion?) async throws -> PulledPage {
        let version: DataVersion
        if let knownVersion { version = knownVersion } else { version = try await store.dataVersion() }
        var page: PulledPage?
        if let cursor, let ahead = take(PageRequest(cursor: cursor, limit: limit, entities: entities)) {
            // A read that failed (the cursor was compacted away meanwhile) is done again, to answer its error.
            if ahead.version == version, let read = try? await ahead.page.value {
                page = read
            } else {
                ahead.page.cancel()
            }
            metrics.recordPullReadAhead(used: page != nil)
        }
        let answer: PulledPage
        if let page { answer = page } else { answer = try await store.pull(cursor: cursor, limit: limit, entities: entities) }
        if let following = answer.following, limit <= maxPageSize {
            readAhead(PageRequest(cursor: following, limit: limit, entities: entities), at: version)
        }
        return answer
    }

    private func take(_ request: PageRequest) -> Ahead? {
        lock.withLock {
            guard let index = waiting.firstIndex(where: { $0.request == request }) else { return nil }
            return waiting.remove(at: index)
        }
    }

    private func readAhead(_ request: PageRequest, at version: DataVersion) {
        let store = store
        lock.withLock {
            let now = ContinuousClock.now
            waiting.removeAll { ahead in
                guard now - ahead.started > maxWait else { return false }
                ahead.page.cancel()
                return true
            }
            guard waiting.count < maxHeld, !waiting.contains(where: { $0.request == request }) else { return }
            let page = Task { try await store.pull(cursor: request.cursor, limit: request.limit, entities: request.entities) }
            waiting.append(Ahead(request: request, version: version, started: now, page: page))
        }
    }
}
