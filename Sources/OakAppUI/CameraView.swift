#if canImport(SwiftUI) && canImport(UIKit)
import SwiftUI
import UIKit

/// The camera, full screen, for a note's photo: UIKit's image picker (SwiftUI has no camera view). A photo taken
/// is handed over as JPEG; either way the camera then closes.
struct CameraView: UIViewControllerRepresentable {
    /// Whether the device has a camera (a simulator, some iPads in a case, do not).
    static var isAvailable: Bool { UIImagePickerController.isSourceTypeAvailable(.camera) }

    let took: @MainActor (Data) -> Void
    @Environment(\.dismiss) private var dismiss

    func makeUIViewController(context: Context) -> UIImagePickerController {
        let picker = UIImagePickerController()
        picker.sourceType = .camera
        picker.delegate = context.coordinator
        return picker
    }

    func updateUIViewController(_ picker: UIImagePickerController, context: Context) {}

    func makeCoordinator() -> Coordinator {
        Coordinator(took: took, done: { dismiss() })
    }

    final class Coordinator: NSObject, UIImagePickerControllerDelegate, UINavigationControllerDelegate {
        private let took: @MainActor (Data) -> Void
        private let done: @MainActor () -> Void

        init(took: @escaping @MainActor (Data) -> Void, done: @escaping @MainActor () -> Void) {
            self.took = took
            self.done = done
            super.init()
        }

        func imagePickerController(_ picker: UIImagePickerController, didFinishPickingMediaWithInfo info: [UIImagePickerController.InfoKey: Any]) {
            if let image = info[.originalImage] as? UIImage, let jpeg = image.jpegData(compressionQuality: 0.85) { took(jpeg) }
            done()
        }

        func imagePickerControllerDidCancel(_ picker: UIImagePickerController) {
            done()
        }
    }
}
#endif
