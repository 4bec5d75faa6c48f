#if canImport(SwiftUI) && canImport(UIKit)
import BackgroundTasks

/// Background refresh: iOS starts or wakes the app now and then to sync. The handler is the scene's
/// `.backgroundTask(.appRefresh(identifier))`, registered at launch; the identifier is in the Info.plist.
enum BackgroundSync {
    static let identifier = "com.quercus.OakCompendium.sync"

    /// Asks for the next refresh, no sooner than 15 minutes from now.
    @MainActor
    static func schedule() {
        let request = BGAppRefreshTaskRequest(identifier: identifier)
        request.earliestBeginDate = Date(timeIntervalSinceNow: 15 * 60)
        try? BGTaskScheduler.shared.submit(request)
    }
}
#endif
