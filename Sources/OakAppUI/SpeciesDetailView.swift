#if canImport(SwiftUI) && canImport(UIKit)
import OakApp
import SwiftUI

/// A species' page: taxonomy, relatives, links, and every source's data, your note first.
struct SpeciesDetailView: View {
    /// Owned by the view: a rebuild of the screen above keeps this model and what it holds.
    @State private var model: SpeciesDetailModel
    let app: AppModel

    init(model: SpeciesDetailModel, app: AppModel) {
        _model = State(initialValue: model)
        self.app = app
    }

    var body: some View {
        List {
            Section("Taxonomy") {
                Text(model.taxonomyPath.joined(separator: " › "))
                if !model.parents.isEmpty {
                    LabeledContent("Parents", value: model.parents.joined(separator: " × "))
                }
                if !model.synonyms.isEmpty {
                    LabeledContent("Synonyms") { Text(model.synonyms.joined(separator: "\n")).multilineTextAlignment(.trailing) }
                }
            }
            if !model.related.isEmpty || !model.hybrids.isEmpty {
                Section("Related") {
                    ForEach(model.related + model.hybrids, id: \.self) { name in
                        NavigationLink(Formatting.fullName(name), value: Navigation.Route.species(name))
                    }
                }
            }
            if !model.links.isEmpty {
                Section("Links") {
                    ForEach(model.links) { link in Link(link.title, destination: link.url) }
                }
            }
            ownNoteSection
            ForEach(model.entries) { entry in
                SourceEntrySection(entry: entry)
            }
        }
        .navigationTitle(model.species.map { Formatting.fullName($0.scientificName) } ?? Formatting.fullName(model.name))
        .navigationBarTitleDisplayMode(.inline)
        .task { model.start() }
        .onDisappear { model.stop() }
    }

    @ViewBuilder
    private var ownNoteSection: some View {
        Section {
            if let own = model.entries.first, own.isOwnNote {
                Button("Edit your note", systemImage: "square.and.pencil") { app.navigation.showNote(own.noteID) }
            } else {
                Button("Write a note", systemImage: "plus") { app.navigation.sheet = .newNote(species: model.name) }
            }
        }
    }
}

/// One source's data on a species' page, with the source's name and license.
struct SourceEntrySection: View {
    let entry: SourceEntry

    var body: some View {
        Section {
            ForEach(entry.fields) { field in
                VStack(alignment: .leading, spacing: 4) {
                    Text(field.label).font(.caption).foregroundStyle(.secondary)
                    MarkdownText(field.markdown)
                }
            }
        } header: {
            HStack {
                Text(entry.isOwnNote ? "Your note" : entry.sourceName)
                if entry.isPreferred { Image(systemName: "star.fill").accessibilityLabel("Preferred source") }
            }
        } footer: {
            VStack(alignment: .leading, spacing: 2) {
                if let license = entry.license {
                    if let text = entry.licenseURL, let url = URL(string: text) {
                        Link(license, destination: url)
                    } else {
                        Text(license)
                    }
                }
                if entry.syncState != .synced {
                    Text(entry.syncState.label)
                }
            }
        }
    }
}
#endif
