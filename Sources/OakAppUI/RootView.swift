#if canImport(SwiftUI) && canImport(UIKit)
import OakApp
import SwiftUI

/// The four tabs, the species and notes tabs each a list and the screens it opens (`ListAndDetail`), and the sheets
/// over them.
struct RootView: View {
    let app: AppModel

    var body: some View {
        @Bindable var navigation = app.navigation
        TabView(selection: $navigation.tab) {
            ListAndDetail(
                path: $navigation.speciesPath, selection: $navigation.speciesSelection, placeholder: "Choose a species", placeholderImage: "leaf",
                list: { SpeciesBrowserView(model: app.browser, app: app, selection: $0) }, destination: { destination($0) }
            )
            .tabItem { Label("Species", systemImage: "leaf") }
            .tag(Navigation.Tab.species)

            ListAndDetail(
                path: $navigation.notesPath, selection: $navigation.notesSelection, placeholder: "Choose a note", placeholderImage: "note.text",
                list: { NotesListView(model: app.notesList, app: app, selection: $0) }, destination: { destination($0) }
            )
            .tabItem { Label("Notes", systemImage: "note.text") }
            .tag(Navigation.Tab.notes)

            NavigationStack {
                SourcesListView(model: app.sources, app: app)
            }
            .tabItem { Label("Sources", systemImage: "books.vertical") }
            .tag(Navigation.Tab.sources)

            NavigationStack {
                SettingsView(model: app.settings, sync: app.sync, app: app)
            }
            .tabItem { Label("Settings", systemImage: "gearshape") }
            .tag(Navigation.Tab.settings)
        }
        .sheet(item: $navigation.sheet) { sheet in
            switch sheet {
            case .newNote(let species):
                NewNoteView(model: app.newNote(species: species), app: app)
            case .sourceForm(let id):
                SourceFormView(model: app.sources, id: id, app: app)
            }
        }
        .alert(
            "Something went wrong at launch",
            isPresented: .presenting(while: { app.launchProblem != nil }, dismiss: { app.dismissLaunchProblem() })
        ) {
            Button("OK", role: .cancel) {}
        } message: {
            Text(app.launchProblem ?? "")
        }
        .alert(
            "Notes moved from the previous version",
            isPresented: .presenting(while: { app.legacyImport != nil }, dismiss: { app.dismissLegacyImport() })
        ) {
            Button("OK", role: .cancel) {}
        } message: {
            if let summary = app.legacyImport {
                Text("\(summary.importedNotes) notes, \(summary.createdSources) sources and \(summary.createdSpecies) species; they sync when a server is set.")
            }
        }
    }

    @ViewBuilder
    private func destination(_ route: Navigation.Route) -> some View {
        switch route {
        case .species(let name):
            SpeciesDetailView(model: app.speciesDetail(name), app: app)
        case .note(let id):
            NoteEditorView(model: app.noteEditor(id))
        }
    }
}
#endif
