#if canImport(SwiftUI) && canImport(UIKit)
import SwiftUI

extension Binding where Value == Bool {
    /// Shows an alert, dialog or exporter while `isShown` holds; closing it calls `dismiss`, which clears what
    /// `isShown` reads (a model's message, a view's state).
    static func presenting(while isShown: @escaping @MainActor @Sendable () -> Bool, dismiss: @escaping @MainActor @Sendable () -> Void)
        -> Binding<Bool>
    {
        Binding(get: { @MainActor in isShown() }, set: { @MainActor in if !$0 { dismiss() } })
    }
}
#endif
