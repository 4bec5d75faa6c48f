import Foundation
import OakModels
import OakStore
import OakStoreKit

/// Reads the next pages of a pull while the client takes in the page it was sent. A device's first sync is a
/// dozen pages asked for one after another, each once the one before is parsed and applied; with the pages
/// after it read meanwhile, the next is ready (or partly read) when asked for, so the server's time overlaps the
/// client's instead of adding to it. A page's read starts as soon as the page before it knows its cursor (the
/// store's `following`, before that page is written), so up to `lead` pages of one pull are read side by side
/// where the store gains from it: PostgreSQL's part of one and the server's part of the other run on different
/// cores.
///
/// A page read ahead answers only the next request for its cursor, limit and entities, and only when the data
/// has not moved since its pull's reads began; otherwise the page is read again, as without read-ahead, and the
/// pull's other pages read ahead are let go. At most `maxHeld` pages wait at once, and a page further ahead of
/// its client than the next is read only while fewer than half of them wait, so one pull cannot keep the next
/// pages of the others from being read. A page that waited longer than `maxWait` (its client stopped pulling) is
/// let go. Pages larger than the default are not read ahead, so what waits stays near a megabyte a page.
final class PullReadAhead: @unchecked Sendable {
    /// What a page answers: the same cursor, limit and entities get the same page of the same data.
    struct PageRequest: Hashable {
        var cursor: String
        var limit: Int
        var entities: [SyncEntity]
    }

    /// One device's pull: the pages read ahead for it share this, and the data's version when its reads began.
    private struct Pull: Hashable {
        let id: Int
        let version: DataVersion
    }

    private struct Ahead {
        let request: PageRequest
        let pull: Pull
        let started: ContinuousClock.Instant
        let page: Task<PulledPage, any Error>
        let read: PageRead
    }

    /// Whether a page's read was let go, after which the page it names next is not read. Read and written under
    /// `lock`.
    private final class PageRead: @unchecked Sendable {
        var isLetGo = false
    }

    private let store: any EncodedRepository & MaintenanceRepository
    private let metrics: ServerMetrics
    private let lock = NSLock()
    /// Oldest first.
    private var waiting: [Ahead] = []
    /// The page after the last one read ahead for a pull, known before there was room to read it: read once its
    /// client takes a page.
    private var known: [Pull: PageRequest] = [:]
    private var pullCount = 0
    let maxHeld: Int
    let maxWait: Duration
    let maxPageSize: Int
    /// How many pages of one pull are read ahead of its client at most: the store's `pullPagesReadAhead`.
    let lead: Int

    init(
        store: any EncodedRepository & MaintenanceRepository, metrics: ServerMetrics, maxHeld: Int = 4, maxWait: Duration = .seconds(30),
        maxPageSize: Int = SyncController.defaultPullLimit, lead: Int? = nil
    ) {
        self.store = store
        self.metrics = metrics
        self.maxHeld = maxHeld
        self.maxWait = maxWait
        self.maxPageSize = maxPageSize
        self.lead = lead ?? store.pullPagesReadAhead
    }

    /// The number of pages read ahead and not yet asked for.
    var waitingCount: Int { lock.withLock { waiting.count } }

    /// The page after `cursor`: the one read ahead for it when the data has not moved since, else read now.
    /// When more follow, the next are read ahead. `knownVersion` is the data version when the request already
    /// read it.
    func page(cursor: String?, limit: Int, entities: [SyncEntity], knownVersion: DataVersion?) async throws -> PulledPage {
        let version: DataVersion
        if let knownVersion { version = knownVersion } else { version = try await store.dataVersion() }
        if let cursor, let ahead = take(PageRequest(cursor: cursor, limit: limit, entities: entities)) {
            // A read that failed (the cursor was compacted away meanwhile) is done again, to answer its error.
            let page = ahead.pull.version == version ? try? await ahead.page.value : nil
            metrics.recordPullReadAhead(used: page != nil)
            if let page { return page }
            letGo(ahead)
        }
        let pull = lock.withLock {
            pullCount += 1
            return Pull(id: pullCount, version: version)
        }
        let readsAhead = limit <= maxPageSize
        return try await store.pull(cursor: cursor, limit: limit, entities: entities) { next in
            if readsAhead { self.readAhead(PageRequest(cursor: next, limit: limit, entities: entities), for: pull) }
        }
    }

    /// Takes the page read ahead for `request`, if any; the pages after it may then be read.
    private func take(_ request: PageRequest) -> Ahead? {
        lock.withLock {
            guard let index = waiting.firstIndex(where: { $0.request == request }) else { return nil }
            let ahead = waiting.remove(at: index)
            if let next = known.removeValue(forKey: ahead.pull) { startIfRoom(next, for: ahead.pull) }
            return ahead
        }
    }

    /// Lets go of a page taken but not answered (the data moved, or its read failed) and of the pages read ahead
    /// after it: its client is answered from new reads.
    private func letGo(_ taken: Ahead) {
        lock.withLock {
            cancel(taken)
            known[taken.pull] = nil
            waiting.removeAll { ahead in
                guard ahead.pull == taken.pull else { return false }
                cancel(ahead)
                return true
            }
        }
    }

    /// Reads `request` ahead when there is room, unless the page that named it (`after`) was let go meanwhile.
    private func readAhead(_ request: PageRequest, for pull: Pull, after read: PageRead? = nil) {
        lock.withLock {
            if read?.isLetGo != true { startIfRoom(request, for: pull) }
        }
    }

    /// Stops a page's read. Called under `lock`.
    private func cancel(_ ahead: Ahead) {
        ahead.read.isLetGo = true
        ahead.page.cancel()
    }

    /// Starts reading `request` when there is room, else keeps it as the pull's next page to read (`known`).
    /// Called under `lock`.
    private func startIfRoom(_ request: PageRequest, for pull: Pull) {
        let now = ContinuousClock.now
        waiting.removeAll { ahead in
            guard now - ahead.started > maxWait else { return false }
            cancel(ahead)
            return true
        }
        known = known.filter { entry in waiting.contains { $0.pull == entry.key } }
        guard !waiting.contains(where: { $0.request == request }) else { return }
        let pullWaiting = waiting.count(where: { $0.pull == pull })
        let room = pullWaiting == 0 ? waiting.count < maxHeld : pullWaiting < lead && waiting.count * 2 < maxHeld
        guard room else {
            if pullWaiting > 0 { known[pull] = request }
            return
        }
        let (store, read) = (store, PageRead())
        let page = Task {
            try await store.pull(cursor: request.cursor, limit: request.limit, entities: request.entities) { next in
                self.readAhead(PageRequest(cursor: next, limit: request.limit, entities: request.entities), for: pull, after: read)
            }
        }
        waiting.append(Ahead(request: request, pull: pull, started: now, page: page, read: read))
    }
}
