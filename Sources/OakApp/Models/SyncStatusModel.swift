import Foundation
import OakSync
import Observation

/// The sync indicator: what the engine is doing, what waits, when it last synced; pull to refresh and retry.
@Observable @MainActor
public final class SyncStatusModel {
    /// What the indicator shows.
    public enum Indicator: Hashable, Sendable {
        /// No server is set: the app works on this device only.
        case notConfigured
        /// Everything is synced.
        case idle
        case syncing
        /// The server cannot be reached; `pending` changes wait.
        case offline(pending: Int)
        /// Changes wait for the next sync.
        case pending(Int)
        /// The last sync failed; `retry()` tries again.
        case error(String)
    }

    public private(set) var status = SyncStatus()
    public private(set) var isConfigured = false
    /// The time the label is written for ("synced 5 min ago"): moved on by `keepTime()`, so a view showing the
    /// label is drawn again as time passes.
    public private(set) var now: Date
    private var engine: SyncEngine?
    private var following: Task<Void, Never>?
    private let clock: @Sendable () -> Date
    private let sleeper: any Sleeper

    init(clock: @escaping @Sendable () -> Date, sleeper: any Sleeper) {
        self.clock = clock
        self.sleeper = sleeper
        now = clock()
    }

    /// Keeps `now` current, every 30 seconds, until the calling task is cancelled (the indicator's view runs it while
    /// it shows).
    public func keepTime() async {
        while (try? await sleeper.sleep(for: .seconds(30))) != nil {
            now = clock()
        }
    }

    /// Follows an engine's status (nil: no server).
    func follow(_ engine: SyncEngine?, store: LocalStore) {
        following?.cancel()
        self.engine = engine
        isConfigured = engine != nil
        guard let engine else {
            following = Task { [weak self] in
                let pending = (try? await store.pendingChangeCount()) ?? 0
                self?.status = SyncStatus(state: .idle, pendingCount: pending)
            }
            return
        }
        following = engine.statusUpdates().follow { [weak self] status in self?.status = status }
    }

    public var indicator: Indicator {
        guard isConfigured else { return .notConfigured }
        switch status.state {
        case .syncing: return .syncing
        case .offline: return .offline(pending: status.pendingCount)
        case .error: return .error(status.lastError ?? "The sync failed")
        case .idle: return status.pendingCount > 0 ? .pending(status.pendingCount) : .idle
        }
    }

    /// The indicator in words, e.g. "Synced 5 min ago", "Offline · 2 waiting".
    public var label: String {
        switch indicator {
        case .notConfigured: return "On this device only"
        case .syncing: return "Syncing…"
        case .offline(let pending): return pending > 0 ? "Offline · \(pending) waiting" : "Offline"
        case .pending(let count): return "\(count) waiting to sync"
        case .error(let message): return "Sync failed: \(message)"
        case .idle:
            guard let last = status.lastSuccessfulSync else { return "Not synced yet" }
            return "Synced \(Formatting.relative(last, now: max(now, last)))"
        }
    }

    /// Whether the indicator offers "retry".
    public var canRetry: Bool {
        if case .error = indicator { return true }
        return false
    }

    /// Pull to refresh: syncs now and returns when done.
    public func refresh() async {
        await engine?.sync()
    }

    /// Tries a failed sync again.
    public func retry() async {
        await refresh()
    }
}
