import Logging
import OakStore
import ServiceLifecycle

/// Lets the export document go between bursts of export requests: the export is asked for rarely (a new
/// device, a script) and is the largest thing the server keeps (8 MB on a catalog of 734 species with 28
/// sources each). Once nobody read it for `idle`, the response cache's answers drop it, then the store's
/// own copy goes (kept while the cache still answers with it, so a write after a busy minute patches the
/// document instead of building it again). The next export builds it again (see BENCHMARKS.md,
/// "Server round 2", item 18); its ETag does not change.
struct IdleExportRelease: Service {
    let responseCache: ResponseCache
    let store: any MaintenanceRepository
    let idle: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            // Shutdown cancels the sleep, which ends the loop.
            while (try? await Task.sleep(for: idle / 3)) != nil {
                await releaseIfIdle()
            }
        }
    }

    func releaseIfIdle() async {
        guard responseCache.dropIdleEntries(idleFor: idle) == 0 else { return }
        if await store.releaseIdleExport(idleFor: idle) {
            logger.debug("Released the export document, idle for \(idle)")
        }
    }
}
