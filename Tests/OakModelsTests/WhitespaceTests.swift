import Foundation
import OakModels
import Testing

@Suite("White space at the ends of texts")
struct WhitespaceTests {
    static let texts = [
        "", " ", "\t\n\r", "white oak", "  white oak  ", "\twhite oak\n", "\u{00A0}chêne blanc\u{3000}", "\u{2028}roble\u{2029}",
        "\u{0085}oak\u{200A}", "e\u{0301} ", " \u{0301}e", "x\u{200B}", "\u{FEFF}oak", "a\r\n", "\u{1680}\u{2000}\u{205F}",
    ]

    @Test("texts are trimmed as Foundation's whitespacesAndNewlines trims them, so local names split as before")
    func trimsAsFoundation() {
        for text in Self.texts {
            #expect(String(text.trimmingWhitespace) == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(Array(text.unicodeScalars))")
            #expect(text.isBlank == text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(Array(text.unicodeScalars))")
        }
        // Every scalar of the Basic Multilingual Plane, alone: blank exactly when Foundation trims it away.
        let differing = (0...0xFFFF).compactMap(Unicode.Scalar.init).filter { scalar in
            let text = String(Character(scalar))
            return text.isBlank != text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        }
        #expect(differing.isEmpty, "\(differing.map { String($0.value, radix: 16) })")
        #expect(NoteFields.localNames(from: " white oak ,\u{00A0}, chêne blanc\n,") == ["white oak", "chêne blanc"])
    }
}
