#if canImport(SwiftUI) && canImport(UIKit)
import SwiftUI

/// Text written in markdown, rendered inline (bold, italics, links), or as it is when it does not parse.
struct MarkdownText: View {
    let markdown: String

    init(_ markdown: String) {
        self.markdown = markdown
    }

    var body: some View {
        if let rendered = try? AttributedString(markdown: markdown, options: .init(interpretedSyntax: .inlineOnlyPreservingWhitespace)) {
            Text(rendered)
        } else {
            Text(markdown)
        }
    }
}
#endif
