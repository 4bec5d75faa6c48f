#if canImport(SwiftUI) && canImport(UIKit)
import OakApp
import SwiftUI

/// Adds a source, or edits the one with `id`.
struct SourceFormView: View {
    let model: SourcesModel
    let id: Int?
    let app: AppModel
    @State private var form = SourceForm()

    var body: some View {
        NavigationStack {
            Form {
                TextField("Name", text: $form.name)
                Picker("Type", selection: $form.sourceType) {
                    ForEach(SourceForm.types, id: \.self) { Text($0).tag($0) }
                }
                TextField("Author", text: $form.author)
                TextField("Year", text: $form.year).keyboardType(.numberPad)
                TextField("URL", text: $form.url)
                    .keyboardType(.URL)
                    .textInputAutocapitalization(.never)
                    .autocorrectionDisabled()
                TextField("License", text: $form.license)
                if let error = model.errorMessage {
                    Text(error).foregroundStyle(.red)
                }
            }
            .navigationTitle(id == nil ? "New source" : "Edit source")
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                ToolbarItem(placement: .cancellationAction) {
                    Button("Cancel") { app.navigation.sheet = nil }
                }
                ToolbarItem(placement: .confirmationAction) {
                    Button("Save") {
                        Task { if await model.save(form, id: id) { app.navigation.sheet = nil } }
                    }
                }
            }
            .onAppear { form = model.form(for: id) }
        }
    }
}
#endif
