#if canImport(SwiftUI) && canImport(UIKit)
import OakApp
import OakSync
import SwiftUI

/// The sources, with their sync state; tap to edit, + to add.
struct SourcesListView: View {
    let model: SourcesModel
    let app: AppModel

    var body: some View {
        List(model.rows) { row in
            Button {
                app.navigation.sheet = .sourceForm(id: row.id)
            } label: {
                VStack(alignment: .leading, spacing: 2) {
                    Text(row.source.name)
                    Text(details(row)).font(.caption).foregroundStyle(.secondary)
                    switch row.state {
                    case .synced: EmptyView()
                    case .pendingUpload: Label("Waiting to upload", systemImage: "arrow.up.circle").font(.caption2).foregroundStyle(.orange)
                    case .rejected(let error):
                        Label("Not accepted: \(error.summary)", systemImage: "exclamationmark.triangle").font(.caption2).foregroundStyle(.red)
                    }
                }
            }
            .foregroundStyle(.primary)
        }
        .refreshable { await app.sync.refresh() }
        .navigationTitle("Sources")
        .toolbar {
            ToolbarItem(placement: .topBarTrailing) {
                Button("Add source", systemImage: "plus") { app.navigation.sheet = .sourceForm(id: nil) }
            }
        }
    }

    private func details(_ row: SourceRow) -> String {
        [row.source.sourceType, row.source.author, row.source.year.map(String.init)].compactMap { $0 }.joined(separator: " · ")
    }
}
#endif
