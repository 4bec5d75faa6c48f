#if canImport(SwiftUI) && canImport(UIKit)
import OakApp
import SwiftUI

/// The app's scene: starts the app (`AppStartup`: for the window, or for a background refresh when the system
/// starts the app for one, whose handler is registered here, at launch) and shows the tabs.
public struct OakCompendiumScene: Scene {
    @State private var startup = AppStartup { try AppModel(environment: AppEnvironment.device(dictation: SpeechDictation())) }
    @Environment(\.scenePhase) private var scenePhase

    public init() {}

    public var body: some Scene {
        let startup = startup
        WindowGroup {
            Group {
                if let app = startup.app {
                    RootView(app: app)
                } else if let problem = startup.problem {
                    ContentUnavailableView("Oak Compendium cannot start", systemImage: "exclamationmark.triangle", description: Text(problem))
                } else {
                    ProgressView()
                }
            }
            .task { await startup.start() }
        }
        .onChange(of: scenePhase) { _, phase in
            switch phase {
            case .active: Task { await startup.app?.enteredForeground() }
            case .background: BackgroundSync.schedule()
            default: break
            }
        }
        .backgroundTask(.appRefresh(BackgroundSync.identifier)) {
            await BackgroundSync.schedule()
            _ = await startup.backgroundRefresh()
        }
    }
}
#endif
