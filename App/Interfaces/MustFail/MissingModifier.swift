// expect: has no member 'onTap'
// SwiftUI has no `onTap`; it is `onTapGesture`, which the interface leaves out until a view uses it.
import SwiftUI

struct MissingModifier: View {
    var body: some View {
        Text("Tap me").onTap {}
    }
}
