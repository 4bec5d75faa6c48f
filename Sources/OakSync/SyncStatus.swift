import Foundation
import OakModels

/// What an app's sync indicator shows.
public struct SyncStatus: Hashable, Sendable {
    public enum State: Hashable, Sendable {
        case idle
        case syncing
        /// The server cannot be reached; changes wait locally.
        case offline
        /// The last sync failed; `lastError` says why.
        case error
    }

    public var state: State
    /// Notes whose changes wait to be pushed (rejected ones included).
    public var pendingCount: Int
    public var lastSuccessfulSync: Date?
    /// Why the last sync failed, if it did.
    public var lastError: String?
    /// Pulled changes this client could not read, set aside while the rest was applied (newest sync's).
    public var setAside: [SetAsideChange]

    public init(
        state: State = .idle, pendingCount: Int = 0, lastSuccessfulSync: Date? = nil, lastError: String? = nil,
        setAside: [SetAsideChange] = []
    ) {
        self.state = state
        self.pendingCount = pendingCount
        self.lastSuccessfulSync = lastSuccessfulSync
        self.lastError = lastError
        self.setAside = setAside
    }
}
