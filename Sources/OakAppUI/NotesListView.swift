#if canImport(SwiftUI) && canImport(UIKit)
import OakApp
import SwiftUI

/// Your notes, grouped by subgenus, with search, swipe to delete and undo.
struct NotesListView: View {
    @Bindable var model: NotesListModel
    let app: AppModel
    /// The chosen note when the list stands beside the editor (`ListAndDetail`).
    var selection: Binding<Navigation.Route?>?

    var body: some View {
        List(selection: selection) {
            ForEach(model.groups) { group in
                Section(group.title) {
                    ForEach(group.rows) { row in
                        NavigationLink(value: Navigation.Route.note(row.id)) {
                            NoteRowView(row: row)
                        }
                        .swipeActions {
                            Button("Delete", systemImage: "trash", role: .destructive) {
                                Task { await model.delete(row.id) }
                            }
                        }
                    }
                }
            }
        }
        .overlay {
            if model.groups.isEmpty {
                if model.searchText.isEmpty {
                    ContentUnavailableView("No notes yet", systemImage: "note.text", description: Text("Tap + to write your first field note."))
                } else {
                    ContentUnavailableView.search(text: model.searchText)
                }
            }
        }
        .safeAreaInset(edge: .bottom) {
            if let deleted = model.recentlyDeleted {
                UndoBanner(title: "Deleted \(Formatting.fullName(deleted.scientificName))") {
                    Task { await model.undoDelete() }
                }
                .task(id: deleted.id) {
                    try? await Task.sleep(for: .seconds(5))
                    if model.recentlyDeleted?.id == deleted.id { model.dismissUndo() }
                }
            }
        }
        .searchable(text: $model.searchText, prompt: "Species or common name")
        .refreshable { await app.sync.refresh() }
        .navigationTitle("Notes")
        .tabToolbar(app)
        .alert("Notes", isPresented: .presenting(while: { model.lastError != nil }, dismiss: { model.dismissError() })) {
            Button("OK", role: .cancel) {}
        } message: {
            Text(model.lastError ?? "")
        }
    }
}

/// One note: its title, the species, and where it stands with the server.
struct NoteRowView: View {
    let row: NoteRow

    var body: some View {
        HStack {
            if let thumbnail = row.thumbnail {
                PhotoThumbnail(url: thumbnail, side: 44)
            }
            details
        }
    }

    private var details: some View {
        VStack(alignment: .leading, spacing: 2) {
            Text(row.title)
            if let subtitle = row.subtitle {
                Text(subtitle).font(.caption).italic().foregroundStyle(.secondary)
            }
            if row.photoCount > 0 {
                Label("\(row.photoCount)", systemImage: "photo").font(.caption2).foregroundStyle(.secondary)
            }
            if row.state != .synced {
                Label(row.state.label, systemImage: icon).font(.caption2).foregroundStyle(color)
            }
        }
    }

    private var icon: String {
        switch row.state {
        case .synced: "checkmark"
        case .waitingToUpload: "arrow.up.circle"
        case .waitingToDelete: "trash"
        case .failed: "exclamationmark.triangle"
        }
    }

    private var color: Color {
        if case .failed = row.state { return .red }
        return .orange
    }
}

/// A banner offering to undo the last delete.
struct UndoBanner: View {
    let title: String
    let undo: () -> Void

    var body: some View {
        HStack {
            Text(title).lineLimit(1)
            Spacer()
            Button("Undo", action: undo).bold()
        }
        .padding()
        .background(.regularMaterial, in: RoundedRectangle(cornerRadius: 12))
        .padding(.horizontal)
    }
}
#endif
