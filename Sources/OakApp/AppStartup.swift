import Foundation
import Observation

/// The app from the moment the system starts the process, however it starts it: with a window, or in the
/// background for a refresh before any window exists (the refresh handler is registered with the scene, at launch).
/// Either way the app model is built once and launched once, and the other caller waits for that launch.
@Observable @MainActor
public final class AppStartup {
    /// The app, once built.
    public private(set) var app: AppModel?
    /// Why the app could not be built (its store did not open), for the window to show.
    public private(set) var problem: String?
    private let makeApp: @MainActor () throws -> AppModel
    private var launching: Task<Void, Never>?

    /// `makeApp` builds the app model; it runs on the first `start()` (again after a failure).
    public init(_ makeApp: @escaping @MainActor () throws -> AppModel) {
        self.makeApp = makeApp
    }

    /// Builds and launches the app unless that has happened; returns it once launched, or nil if it could not be built.
    @discardableResult
    public func start() async -> AppModel? {
        if let launching {
            await launching.value
            return app
        }
        let model: AppModel
        do {
            model = try makeApp()
        } catch {
            problem = "\(error)"
            return nil
        }
        problem = nil
        app = model
        let launch = Task { await model.launch() }
        launching = launch
        await launch.value
        return model
    }

    /// A background refresh: starts the app if the system started the process for it, then syncs once; whether
    /// the sync succeeded, for the system's task.
    public func backgroundRefresh() async -> Bool {
        guard let app = await start() else { return false }
        return await app.backgroundRefresh()
    }
}
