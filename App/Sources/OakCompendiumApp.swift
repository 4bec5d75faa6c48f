import OakAppUI
import SwiftUI

/// The app's entry point: everything else lives in the package (OakAppUI views on OakApp models).
@main
struct OakCompendiumApp: App {
    var body: some Scene {
        OakCompendiumScene()
    }
}
