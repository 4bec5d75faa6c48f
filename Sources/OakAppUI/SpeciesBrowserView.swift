#if canImport(SwiftUI) && canImport(UIKit)
import OakApp
import SwiftUI

/// Every species, grouped by subgenus and section, with search as you type.
struct SpeciesBrowserView: View {
    @Bindable var model: SpeciesBrowserModel
    let app: AppModel
    /// The chosen species when the list stands beside its page (`ListAndDetail`).
    var selection: Binding<Navigation.Route?>?

    var body: some View {
        List(selection: selection) {
            ForEach(model.groups) { group in
                Section(group.title) {
                    ForEach(group.rows) { row in
                        NavigationLink(value: Navigation.Route.species(row.name)) {
                            SpeciesRowView(row: row)
                        }
                    }
                }
            }
        }
        .overlay {
            if model.groups.isEmpty && !model.searchText.isEmpty {
                ContentUnavailableView.search(text: model.searchText)
            }
        }
        .searchable(text: $model.searchText, prompt: "Name, common name or synonym")
        .refreshable { await app.sync.refresh() }
        .navigationTitle("Species")
        .tabToolbar(app)
    }
}

/// One species in a list: its name in italics, the author, and a clock while it waits to sync.
struct SpeciesRowView: View {
    let row: SpeciesRow

    var body: some View {
        HStack {
            VStack(alignment: .leading, spacing: 2) {
                Text(row.title).italic()
                if let author = row.author {
                    Text(author).font(.caption).foregroundStyle(.secondary)
                }
            }
            Spacer()
            if row.isPending {
                Image(systemName: "clock").foregroundStyle(.orange).accessibilityLabel("Waiting to sync")
            }
        }
    }
}
#endif
