#if canImport(SwiftUI) && canImport(UIKit)
import SwiftUI

/// A photo kept on the device, as a square thumbnail, loaded off the main thread.
struct PhotoThumbnail: View {
    let url: URL
    let side: CGFloat

    var body: some View {
        AsyncImage(url: url) { image in
            image.resizable().scaledToFill()
        } placeholder: {
            ProgressView()
        }
        .frame(width: side, height: side)
        .clipShape(RoundedRectangle(cornerRadius: side / 8))
    }
}
#endif
