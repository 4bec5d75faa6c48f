#if canImport(SwiftUI) && canImport(UIKit)
import OakApp
import SwiftUI

/// A tab's list and the screens it opens: side by side on a regular width (iPad, or a large iPhone in landscape),
/// the list's choice in the detail column (`Navigation.speciesSelection`); one stack on a compact width. Both show
/// the same path, so turning the device keeps the screen the user was on.
struct ListAndDetail<ListContent: View, Destination: View>: View {
    @Binding var path: [Navigation.Route]
    @Binding var selection: Navigation.Route?
    /// What the detail column says before anything is chosen.
    let placeholder: String
    let placeholderImage: String
    /// The list, given the selection to bind when it stands beside the detail (nil in one stack).
    let list: (Binding<Navigation.Route?>?) -> ListContent
    let destination: (Navigation.Route) -> Destination
    @Environment(\.horizontalSizeClass) private var sizeClass

    var body: some View {
        if sizeClass == .regular {
            NavigationSplitView {
                list($selection)
            } detail: {
                NavigationStack(path: $path) {
                    ContentUnavailableView(placeholder, systemImage: placeholderImage)
                        .navigationDestination(for: Navigation.Route.self, destination: destination)
                }
            }
        } else {
            NavigationStack(path: $path) {
                list(nil).navigationDestination(for: Navigation.Route.self, destination: destination)
            }
        }
    }
}
#endif
