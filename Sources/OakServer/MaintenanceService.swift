import Foundation
import Logging
import OakStore
import ServiceLifecycle

/// Upkeep while the server runs: at start it compacts and fills the search index; daily it compacts
/// tombstones older than the retention horizon and, when enabled, writes a backup (keeping the newest few).
struct MaintenanceService: Service {
    let store: any SyncRepository & MaintenanceRepository
    /// The store's backups, when the server owns the database file.
    let backupStore: (any BackupRepository)?
    let retention: Duration
    let backups: BackupSettings
    let logger: Logger
    var interval: Duration = .seconds(86_400)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await compactOnce()
            await prepareSearch()
            // Shutdown cancels the sleep; that ends the loop, not the server with an error.
            while (try? await Task.sleep(for: interval)) != nil {
                await dailyWork()
            }
        }
    }

    /// What runs once a day: compaction, then the backup if enabled.
    func dailyWork() async {
        await compactOnce()
        if backups.daily { await backupOnce() }
    }

    func prepareSearch() async {
        do {
            try await store.prepareSearch()
        } catch {
            logger.warning("Search index not filled ahead of the first search", metadata: ["error": "\(error)"])
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

    func backupOnce() async {
        guard let backupStore else {
            return logger.warning("Daily backup skipped", metadata: ["error": "\(BackupController.notOwned.message)"])
        }
        do {
            let info = try await backupStore.backup(into: backups.directory, keep: backups.keep)
            logger.info("Daily backup written", metadata: ["file": .string(info.filename)])
        } catch {
            logger.error("Daily backup failed", metadata: ["error": "\(error)"])
        }
    }
}
