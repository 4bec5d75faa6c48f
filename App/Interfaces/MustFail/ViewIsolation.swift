// expect: main actor-isolated
// A view is `@MainActor`: its body cannot be read from code that is not on the main actor.
import SwiftUI

struct Greeting: View {
    var body: some View {
        Text("Hello")
    }
}

nonisolated func render(_ greeting: Greeting) {
    _ = greeting.body
}
