#if canImport(SwiftUI) && canImport(UIKit)
import OakApp
import OakModels
import PhotosUI
import SwiftUI

/// The note editor: one section per field, saved as you type, with dictation into any field.
struct NoteEditorView: View {
    /// Owned by the view: a rebuild of the screen above keeps this model and what it holds.
    @State private var model: NoteEditorModel
    /// Photos chosen in the library, until they are copied into the note.
    @State private var picked: [PhotosPickerItem] = []
    @State private var showsCamera = false
    @Environment(\.dismiss) private var dismiss

    init(model: NoteEditorModel) {
        _model = State(initialValue: model)
    }

    var body: some View {
        Form {
            if model.state != .synced {
                Label(model.state.label, systemImage: "arrow.up.circle").font(.footnote).foregroundStyle(.orange)
            }
            if let error = model.lastError {
                Text(error).font(.footnote).foregroundStyle(.red)
            }
            if model.canTakePhotos {
                Section("Photos") {
                    if !model.photos.isEmpty {
                        ScrollView(.horizontal) {
                            HStack {
                                ForEach(model.photos, id: \.self) { photo in
                                    PhotoThumbnail(url: photo, side: 96)
                                        .contextMenu {
                                            Button("Remove photo", role: .destructive) { model.removePhoto(photo) }
                                        }
                                }
                            }
                        }
                    }
                    // JPEG whatever the library holds (HEIC included), as the note's photos are kept.
                    if CameraView.isAvailable {
                        Button("Take a photo", systemImage: "camera") { showsCamera = true }
                    }
                    PhotosPicker(selection: $picked, matching: .images, preferredItemEncoding: .compatible) {
                        Label("Add from the library", systemImage: "photo.on.rectangle")
                    }
                }
            }
            ForEach(NoteFields.Field.allCases, id: \.self) { field in
                Section(field.label) {
                    HStack(alignment: .top) {
                        TextField(
                            Formatting.placeholder(field),
                            text: Binding(get: { @MainActor in model.text(field) }, set: { @MainActor in model.set(field, to: $0) }), axis: .vertical
                        )
                        if model.dictatingField == field {
                            Button {
                                Task { await model.cancelDictation() }
                            } label: {
                                Image(systemName: "xmark.circle")
                            }
                            .buttonStyle(.borderless)
                            .accessibilityLabel("Cancel dictation")
                        }
                        DictationButton(isListening: model.dictatingField == field) {
                            Task {
                                if model.dictatingField == field {
                                    await model.stopDictation()
                                } else {
                                    await model.startDictation(into: field)
                                }
                            }
                        }
                    }
                }
            }
        }
        .fullScreenCover(isPresented: $showsCamera) {
            CameraView { jpeg in model.addPhoto(jpeg) }
        }
        .onChange(of: picked) { _, items in
            guard !items.isEmpty else { return }
            picked = []
            Task {
                for item in items {
                    if let jpeg = try? await item.loadTransferable(type: Data.self) { model.addPhoto(jpeg) }
                }
            }
        }
        .navigationTitle(model.title)
        .navigationBarTitleDisplayMode(.inline)
        .task { await model.load() }
        .onChange(of: model.isMissing) { _, missing in if missing { dismiss() } }
        .onDisappear {
            Task {
                await model.stopDictation()
                await model.flush()
                model.stop()
            }
        }
    }
}

/// The microphone button of a field: filled red while it listens.
struct DictationButton: View {
    let isListening: Bool
    let action: () -> Void

    var body: some View {
        Button(action: action) {
            Image(systemName: isListening ? "mic.fill" : "mic")
                .foregroundStyle(isListening ? .red : .accentColor)
        }
        .buttonStyle(.borderless)
        .accessibilityLabel(isListening ? "Stop dictation" : "Dictate")
    }
}
#endif
