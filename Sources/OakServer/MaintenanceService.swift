import Foundation
import Logging
import OakStore
import ServiceLifecycle

/// Daily upkeep while the server runs: compacts tombstones older than the retention horizon.
struct MaintenanceService: Service {
    let store: any SyncRepository
    let retention: Duration
    let logger: Logger
    var interval: Duration = .seconds(86_400)

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await compactOnce()
                try await Task.sleep(for: interval)
            }
        }
    }

    func compactOnce() async {
        let horizon = Date().addingTimeInterval(-TimeInterval(retention.components.seconds))
        do {
            let removed = try await store.compact(olderThan: horizon)
            if removed > 0 { logger.info("Compacted sync tombstones", metadata: ["removed": "\(removed)"]) }
        } catch {
            logger.error("Tombstone compaction failed", metadata: ["error": "\(error)"])
        }
    }
}
