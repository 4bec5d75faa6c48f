#if canImport(SwiftUI) && canImport(UIKit)
import OakApp
import OakModels
import SwiftUI

/// The new-note sheet: a species from the catalog (or a new one placed in the taxonomy) and a source.
struct NewNoteView: View {
    /// Owned by the view: a rebuild of the sheet's parent keeps this model and what was typed into it.
    @State private var model: NewNoteModel
    let app: AppModel

    init(model: NewNoteModel, app: AppModel) {
        _model = State(initialValue: model)
        self.app = app
    }

    var body: some View {
        NavigationStack {
            Form {
                Toggle("Species not in the catalog", isOn: $model.isNewSpecies)
                if model.isNewSpecies {
                    newSpeciesSection
                } else {
                    speciesSection
                }
                Section("Source") {
                    Picker("Source", selection: $model.sourceID) {
                        ForEach(model.sources, id: \.id) { source in Text(source.name).tag(source.id) }
                    }
                }
                if let error = model.errorMessage {
                    Text(error).foregroundStyle(.red)
                }
            }
            .navigationTitle("New note")
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                ToolbarItem(placement: .cancellationAction) {
                    Button("Cancel") { app.navigation.sheet = nil }
                }
                ToolbarItem(placement: .confirmationAction) {
                    Button("Create") {
                        Task {
                            if let id = await model.create() {
                                app.navigation.sheet = nil
                                app.navigation.showNote(id)
                            }
                        }
                    }
                    .disabled(!model.canCreate)
                }
            }
            .task { await model.load() }
        }
    }

    private var speciesSection: some View {
        Section("Species") {
            TextField("Search the catalog", text: $model.speciesQuery)
                .textInputAutocapitalization(.never)
                .autocorrectionDisabled()
            if let selected = model.selectedSpecies {
                Label(Formatting.fullName(selected), systemImage: "checkmark.circle.fill").italic()
            }
            ForEach(model.suggestions) { row in
                Button {
                    model.selectedSpecies = row.name
                } label: {
                    SpeciesRowView(row: row)
                }
                .foregroundStyle(.primary)
            }
        }
    }

    private var newSpeciesSection: some View {
        Section("New species") {
            TextField("Name, e.g. Quercus alba", text: $model.newSpeciesName)
                .textInputAutocapitalization(.never)
                .autocorrectionDisabled()
            Toggle("Hybrid", isOn: $model.isHybrid)
            TaxonPicker(title: "Subgenus", options: model.subgenusOptions, selection: $model.subgenus)
            TaxonPicker(title: "Section", options: model.sectionOptions, selection: $model.section)
            TaxonPicker(title: "Subsection", options: model.subsectionOptions, selection: $model.subsection)
            TaxonPicker(title: "Complex", options: model.complexOptions, selection: $model.complex)
        }
    }
}

/// A picker of one taxonomy level, with "None".
struct TaxonPicker: View {
    let title: String
    let options: [String]
    @Binding var selection: String?

    var body: some View {
        Picker(title, selection: $selection) {
            Text("None").tag(String?.none)
            ForEach(options, id: \.self) { name in Text(name).tag(String?.some(name)) }
        }
        .disabled(options.isEmpty && selection == nil)
    }
}
#endif
