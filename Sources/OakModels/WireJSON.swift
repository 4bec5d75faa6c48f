import Foundation

/// How the server writes JSON: sorted keys, slashes unescaped (the encoder of every response).
public enum WireJSON {
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()
}
