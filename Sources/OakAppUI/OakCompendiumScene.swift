#if canImport(SwiftUI) && os(iOS)
import OakApp
import SwiftUI

/// The app's scene: builds the app model for this device, launches it, and shows the tabs.
public struct OakCompendiumScene: Scene {
    @State private var app: AppModel? = nil
    @State private var problem: String? = nil
    @Environment(\.scenePhase) private var scenePhase

    public init() {}

    public var body: some Scene {
        WindowGroup {
            Group {
                if let app {
                    RootView(app: app)
                } else if let problem {
                    ContentUnavailableView("Oak Compendium cannot start", systemImage: "exclamationmark.triangle", description: Text(problem))
                } else {
                    ProgressView()
                }
            }
            .task {
                guard app == nil else { return }
                do {
                    let model = try AppModel(environment: AppEnvironment.device(dictation: SpeechDictation()))
                    app = model
                    BackgroundSync.register(app: model)
                    await model.launch()
                } catch {
                    problem = "\(error)"
                }
            }
        }
        .onChange(of: scenePhase) { _, phase in
            guard let app else { return }
            switch phase {
            case .active: Task { await app.enteredForeground() }
            case .background: BackgroundSync.schedule()
            default: break
            }
        }
    }
}
#endif
