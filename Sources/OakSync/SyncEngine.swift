import Foundation
import Logging
import OakClient
import OakModels

/// How the engine batches, retries and schedules.
public struct SyncConfiguration: Sendable {
    /// Changes per push request (the server takes at most 500).
    public var pushBatchSize: Int
    /// Changes per page of an incremental pull.
    public var pullPageSize: Int
    /// Changes per page of a full snapshot. Each page is applied while the next is fetched, so small pages
    /// cost little time and keep a first sync's memory low (two pages at most).
    public var snapshotPageSize: Int
    public var retry: RetryPolicy
    /// Quiet time after a local write before the engine syncs.
    public var debounce: Duration
    /// Time between periodic syncs.
    public var period: Duration
    /// Push-then-pull rounds per sync at most (a round settles conflicts the previous one found).
    public var maxRounds: Int

    public init(
        pushBatchSize: Int = 100, pullPageSize: Int = 500, snapshotPageSize: Int = 500, retry: RetryPolicy = RetryPolicy(), debounce: Duration = .seconds(2),
        period: Duration = .seconds(300), maxRounds: Int = 3
    ) {
        self.pushBatchSize = pushBatchSize
        self.pullPageSize = pullPageSize
        self.snapshotPageSize = snapshotPageSize
        self.retry = retry
        self.debounce = debounce
        self.period = period
        self.maxRounds = maxRounds
    }
}

/// Keeps a `LocalStore` in sync with the server: pushes pending note changes, pulls server changes,
/// and publishes a `SyncStatus`. Syncs run one at a time, on demand (`sync()`), when the app comes
/// to the foreground, after local writes (debounced), when connectivity returns, and periodically.
public actor SyncEngine {
    private let repository: NotesRepository
    private let client: OakClient
    private let connectivity: any Connectivity
    private let configuration: SyncConfiguration
    private let sleeper: any Sleeper
    private let reconciler: Reconciler
    private let catalogPusher: CatalogPusher
    private let logger: Logger
    /// Changes set aside during the sync in progress.
    private var setAside: [SetAsideChange] = []
    private let statusBroadcaster = Broadcaster<SyncStatus>(replaysLatest: true)

    /// The current status.
    public private(set) var status = SyncStatus() {
        didSet { if status != oldValue { statusBroadcaster.yield(status) } }
    }
    /// The last sync requested; each sync waits for the one before it.
    private var running: Task<SyncStatus, Never>?
    private var triggers: [Task<Void, Never>] = []
    private var debounced: Task<Void, Never>?

    public init(
        repository: NotesRepository, client: OakClient, connectivity: any Connectivity,
        configuration: SyncConfiguration = SyncConfiguration(), sleeper: any Sleeper = TaskSleeper(),
        logger: Logger = Logger(label: "oak.sync")
    ) {
        self.logger = logger
        self.repository = repository
        self.client = client
        self.connectivity = connectivity
        self.configuration = configuration
        self.sleeper = sleeper
        reconciler = Reconciler(store: repository.store)
        catalogPusher = CatalogPusher(store: repository.store)
    }

    /// The status now and after every change, for the app's sync indicator.
    public nonisolated func statusUpdates() -> AsyncStream<SyncStatus> {
        statusBroadcaster.stream()
    }

    /// Starts the automatic triggers: connectivity restored, local writes (debounced), and the periodic timer.
    public func start() {
        guard triggers.isEmpty else { return }
        let connectivityChanges = connectivity.changes()
        let writes = repository.store.localWrites()
        let (sleeper, period) = (sleeper, configuration.period)
        triggers = [
            Task { [weak self] in
                for await online in connectivityChanges {
                    await self?.connectivityChanged(online: online)
                }
            },
            Task { [weak self] in
                for await _ in writes {
                    await self?.localWriteHappened()
                }
            },
            Task { [weak self] in
                while (try? await sleeper.sleep(for: period)) != nil {
                    guard let self else { return }
                    await self.requestSync()
                }
            },
        ]
        requestSync()
    }

    /// Stops the automatic triggers; a sync in progress finishes.
    public func stop() {
        triggers.forEach { $0.cancel() }
        triggers = []
        debounced?.cancel()
    }

    /// Call when the app comes to the foreground.
    public func appWillEnterForeground() {
        requestSync()
    }

    /// Syncs now, after any sync in progress, and returns when done with the status this sync left (`status` may
    /// have moved on by the time the caller reads it: a trigger can start the next sync at once).
    @discardableResult
    public func sync() async -> SyncStatus {
        let previous = running
        let task = Task {
            _ = await previous?.value
            await self.runCycle()
            return self.status
        }
        running = task
        return await task.value
    }

    // MARK: Triggers

    private func requestSync() {
        Task { await self.sync() }
    }

    private func connectivityChanged(online: Bool) async {
        if online {
            await sync()
        } else {
            status.state = .offline
        }
    }

    private func localWriteHappened() async {
        status.pendingCount = (try? await repository.store.pendingChangeCount()) ?? status.pendingCount
        debounced?.cancel()
        let (sleeper, delay) = (sleeper, configuration.debounce)
        debounced = Task { [weak self] in
            guard (try? await sleeper.sleep(for: delay)) != nil else { return }
            await self?.sync()
        }
    }

    // MARK: The sync cycle

    private func runCycle() async {
        guard await connectivity.isOnline else {
            status.state = .offline
            status.pendingCount = (try? await repository.store.pendingChangeCount()) ?? status.pendingCount
            return
        }
        status.state = .syncing
        setAside = []
        do {
            // A device that has never pulled takes the server's snapshot first: its pushes then carry a cursor,
            // which names the history they were made in (a restore is seen even right after a first push).
            if try await repository.store.cursor() == nil { try await pull() }
            for _ in 0..<configuration.maxRounds {
                do {
                    try await push()
                } catch let error as OakClientError where error.status == 410 {
                    // The server is not the history this device's base versions come from (restored from a
                    // backup, or another database): its snapshot first; the next round pushes what it lacks.
                    try await pullSnapshot(serverLostHistory: CursorRefusal.serverLostHistory(error.serverError.flatMap(CursorRefusal.init)))
                    continue
                }
                try await pull()
                // Another round while a pull left something to push (notes or catalog records a restored server lost).
                if try await reconciler.pushableIDs().isEmpty, try await !catalogPusher.hasPending() { break }
            }
            let finished = Date()
            let pending = try await repository.store.recordSuccessfulSync(at: finished)
            status = SyncStatus(state: .idle, pendingCount: pending, lastSuccessfulSync: finished, setAside: setAside)
        } catch {
            let offline = !(await connectivity.isOnline)
            status.state = offline ? .offline : .error
            status.lastError = String(describing: error)
            status.pendingCount = (try? await repository.store.pendingChangeCount()) ?? status.pendingCount
            status.setAside = setAside
        }
    }

    /// Pushes the catalog records created here, then every pushable note in batches, each read afresh
    /// just before it is sent, with the pull cursor: the server refuses (410) base versions of another history.
    private func push() async throws {
        try await catalogPusher.push(client, retry: configuration.retry, sleeper: sleeper)
        let cursor = try await repository.store.cursor()
        let ids = try await reconciler.pushableIDs()
        for start in stride(from: 0, to: ids.count, by: configuration.pushBatchSize) {
            let batch = try await reconciler.pushable(Array(ids[start..<min(start + configuration.pushBatchSize, ids.count)]))
            guard !batch.isEmpty else { continue }
            let changes = batch.map(\.pushChange)
            let client = client
            let response = try await configuration.retry.run(sleeper: sleeper) {
                try await client.push(changes, cursor: cursor)
            }
            try await reconciler.applyPushResults(response.results, sent: batch)
        }
    }

    /// Pulls every change since the saved cursor; a missing or refused (410) cursor means a full snapshot.
    /// After a refusal, the synced notes the snapshot lacks are removed only when the server says it forgot
    /// deletes (an expired cursor); after a restore or on another database they are what the server lost, and
    /// are sent to it again (`CursorRefusal`).
    private func pull() async throws {
        guard let cursor = try await repository.store.cursor() else { return try await pullSnapshot(serverLostHistory: false) }
        var since = cursor
        while true {
            let page: PullResponse
            do {
                page = try await fetchPage(since: since, limit: configuration.pullPageSize)
            } catch let error as OakClientError where error.status == 410 {
                let reason = error.serverError.flatMap(CursorRefusal.init)
                return try await pullSnapshot(serverLostHistory: CursorRefusal.serverLostHistory(reason))
            }
            note(page.setAside)
            try await reconciler.applyPull(page)
            since = page.cursor
            if !page.hasMore { return }
        }
    }

    /// Pulls everything, applying each page as it arrives while the next one is fetched (so the server's
    /// work and the device's overlap; at most two pages in memory), then settles what no page held (see
    /// `Reconciler.finishSnapshot`), saves the cursor, and folds the write-ahead log back into the database file.
    private func pullSnapshot(serverLostHistory: Bool) async throws {
        var seen: Set<String> = []
        var unreadable: [SetAsideChange] = []
        let limit = configuration.snapshotPageSize
        var next: Task<PullResponse, any Error>? = Task { try await self.fetchPage(since: nil, limit: limit) }
        var cursor = "0"
        while let fetching = next {
            let page = try await fetching.value
            next = page.hasMore ? Task { try await self.fetchPage(since: page.cursor, limit: limit) } : nil
            do {
                seen.formUnion(try await reconciler.applySnapshotPage(page.changes, serverLostHistory: serverLostHistory))
            } catch {
                next?.cancel()
                throw error
            }
            unreadable += page.setAside
            cursor = page.cursor
        }
        note(unreadable)
        try await reconciler.finishSnapshot(seen: seen, setAside: unreadable, cursor: cursor, serverLostHistory: serverLostHistory)
        try await repository.store.checkpoint()
    }

    /// Records and logs pulled changes that could not be read; the rest of their pages is applied.
    private func note(_ unreadable: [SetAsideChange]) {
        for change in unreadable {
            logger.warning(
                "Pulled change set aside: it could not be read",
                metadata: ["entity": "\(change.entity)", "key": "\(change.key)", "reason": "\(change.reason)"])
        }
        // A change pulled twice in one sync (a snapshot, then the round's pull) is listed once.
        setAside += unreadable.filter { !setAside.contains($0) }
    }

    private nonisolated func fetchPage(since: String?, limit: Int) async throws -> PullResponse {
        let client = client
        return try await configuration.retry.run(sleeper: sleeper) {
            try await client.pull(since: since, limit: limit)
        }
    }
}
