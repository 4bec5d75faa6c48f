#if canImport(SwiftUI) && os(iOS)
import BackgroundTasks
import OakApp

/// Background refresh: iOS wakes the app now and then to sync (BGTaskScheduler, identifier in the Info.plist).
enum BackgroundSync {
    static let identifier = "org.oakcompendium.app.sync"

    /// Registers the refresh handler; call once, before the app finishes launching.
    @MainActor
    static func register(app: AppModel) {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { task in
            guard let refresh = task as? BGAppRefreshTask else {
                task.setTaskCompleted(success: false)
                return
            }
            schedule()
            let work = Task { @MainActor in
                let success = await app.backgroundRefresh()
                refresh.setTaskCompleted(success: success)
            }
            refresh.expirationHandler = { work.cancel() }
        }
        schedule()
    }

    /// Asks for the next refresh, no sooner than 15 minutes from now.
    static func schedule() {
        let request = BGAppRefreshTaskRequest(identifier: identifier)
        request.earliestBeginDate = Date(timeIntervalSinceNow: 15 * 60)
        try? BGTaskScheduler.shared.submit(request)
    }
}
#endif
