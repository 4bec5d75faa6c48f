import Foundation

/// Decoding failures told as a person reads them: where (`species[12].taxonomy`) and what is wrong.
public enum DecodingErrors {
    public static func describe(_ error: DecodingError) -> String {
        func place(_ path: [any CodingKey]) -> String {
            let text = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : (text.isEmpty ? "the document" : text)
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(place(context.codingPath)): expected \(readable(type))"
        case .valueNotFound(let type, let context): return "\(place(context.codingPath)): expected \(readable(type)), found nothing"
        case .keyNotFound(let key, let context): return "\(place(context.codingPath + [key])): missing"
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return "\(place(context.codingPath)): \(underlying ?? context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    private static func readable(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "text"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type: "a whole number"
        case is [String].Type: "a list of texts"
        default: "\(type)"
        }
    }

    /// Decodes a JSON body, a decoding failure becoming `CLIError.invalid` naming the field.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw CLIError.invalid(describe(error))
        }
    }
}
