// expect: extraneous argument label 'title:'
// A button's title has no label: `Button("Save") { … }`.
import SwiftUI

struct WrongArgumentLabel: View {
    var body: some View {
        Button(title: "Save") {}
    }
}
