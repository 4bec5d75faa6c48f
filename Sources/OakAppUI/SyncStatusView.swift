#if canImport(SwiftUI) && canImport(UIKit)
import OakApp
import SwiftUI

/// The sync indicator for a toolbar: an icon and the status in words, with Retry after a failure.
struct SyncStatusView: View {
    let model: SyncStatusModel

    var body: some View {
        HStack(spacing: 6) {
            if model.indicator == .syncing {
                ProgressView().controlSize(.small)
            } else {
                Image(systemName: icon).foregroundStyle(tint)
            }
            Text(model.label).font(.caption).lineLimit(1)
            if model.canRetry {
                Button("Retry") { Task { await model.retry() } }.font(.caption.bold())
            }
        }
        .accessibilityElement(children: .combine)
        .task { await model.keepTime() }
    }

    private var icon: String {
        switch model.indicator {
        case .notConfigured: "iphone"
        case .idle: "checkmark.icloud"
        case .syncing: "arrow.triangle.2.circlepath"
        case .offline: "icloud.slash"
        case .pending: "arrow.up.circle"
        case .error: "exclamationmark.icloud"
        }
    }

    private var tint: Color {
        switch model.indicator {
        case .error: .red
        case .offline, .pending: .orange
        default: .secondary
        }
    }
}
#endif
