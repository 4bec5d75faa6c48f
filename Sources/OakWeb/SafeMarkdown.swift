import Ink

/// Markdown as HTML that can run nothing: Ink (a small, dependency-free Markdown parser) renders the text, and
/// nothing of the text reaches the page as markup of its own.
///
/// - Raw HTML is never passed through: every `<` is written as `&lt;` before Ink reads the text (Ink keeps
///   entities as they are), so a tag in a description shows as text.
/// - A link keeps its target only when it is `http`, `https` or `mailto`, or a path on this site; any other
///   (`javascript:`, `data:`, a reference link) leaves its text alone. The target is escaped for the attribute.
/// - An image shows as its description: the pages load nothing from elsewhere.
public enum SafeMarkdown {
    /// The HTML of `text` read as Markdown.
    public static func html(_ text: String) -> String {
        // A parser is a list of modifiers: made per call, as Ink's types are not `Sendable`.
        let parser = MarkdownParser(modifiers: [
            Modifier(target: .links) { input in link(html: input.html, markdown: input.markdown) },
            Modifier(target: .images) { input in imageText(markdown: input.markdown) },
        ])
        let escaped = text.replacingOccurrences(of: "<", with: "&lt;")
        // Inside code Ink escapes the `&` of the entity written above; the code shows the `<` it held.
        return parser.html(from: escaped).replacingOccurrences(of: "&amp;lt;", with: "&lt;")
    }

    /// A link as Ink wrote it (`<a href="target">text</a>`), with a target checked and escaped, or its text alone.
    static func link(html: String, markdown: Substring) -> String {
        guard let open = markdown.range(of: "](", options: .backwards), markdown.hasSuffix(")") else { return text(ofLink: html) }
        let target = String(markdown[open.upperBound..<markdown.index(before: markdown.endIndex)])
        let prefix = "<a href=\"\(target)\">"
        guard html.hasPrefix(prefix), html.hasSuffix("</a>") else { return text(ofLink: html) }
        let inner = String(html.dropFirst(prefix.count).dropLast("</a>".count))
        guard let safe = WebText.safeURL(target) else { return inner }
        return "<a href=\"\(WebText.escaped(safe))\" rel=\"nofollow noopener noreferrer\">\(inner)</a>"
    }

    /// The text of a link whose target is not kept: what follows the opening tag, without the closing one.
    private static func text(ofLink html: String) -> String {
        guard let start = html.range(of: "\">"), html.hasSuffix("</a>") else { return WebText.escaped(html) }
        return String(html[start.upperBound...].dropLast("</a>".count))
    }

    /// An image's description (`![description](target)`), as text.
    static func imageText(markdown: Substring) -> String {
        guard markdown.hasPrefix("!["), let close = markdown.range(of: "](", options: .backwards) else { return "" }
        return WebText.escaped(String(markdown[markdown.index(markdown.startIndex, offsetBy: 2)..<close.lowerBound]))
    }
}

/// Text put into HTML by hand (the templates escape their own values).
public enum WebText {
    /// `text` with every character that could end an element or an attribute written as an entity.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// `url` when a page may link to it: `http`, `https` or `mailto`, or a path or fragment on this site; nil for
    /// anything else (`javascript:`, `data:`, a scheme-relative `//host`). Whitespace and control characters,
    /// which browsers strip from a scheme, make it unsafe too.
    public static func safeURL(_ url: String) -> String? {
        guard !url.isEmpty, !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else { return nil }
        if url.hasPrefix("#") || (url.hasPrefix("/") && !url.hasPrefix("//")) { return url }
        let lowered = url.lowercased()
        return ["http://", "https://", "mailto:"].contains(where: lowered.hasPrefix) ? url : nil
    }
}
