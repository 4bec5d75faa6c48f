#if canImport(SwiftUI) && canImport(UIKit)
import OakApp
import SwiftUI

extension View {
    /// The toolbar of the species and notes tabs: the sync indicator, and + for a new note.
    func tabToolbar(_ app: AppModel) -> some View {
        toolbar {
            ToolbarItem(placement: .topBarLeading) { SyncStatusView(model: app.sync) }
            ToolbarItem(placement: .topBarTrailing) {
                Button("New note", systemImage: "plus") { app.navigation.sheet = .newNote(species: nil) }
            }
        }
    }
}
#endif
