// expect: 'Binding<Int>' to expected argument type 'Binding<String>'
// A text field edits a string; a number needs a formatter or a string in the model.
import SwiftUI

struct WrongBindingType: View {
    @State private var year = 2024

    var body: some View {
        TextField("Year", text: $year)
    }
}
