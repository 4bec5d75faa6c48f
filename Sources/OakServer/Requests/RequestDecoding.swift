import Foundation
import Hummingbird
import OakModels

extension Request {
    /// Decodes a JSON body, answering malformed JSON or wrong types with a 400 naming the field. The size cap
    /// was enforced by `RequestLimitsMiddleware`: a declared length over it was refused, an undeclared one read.
    func decodeJSON<T: Decodable>(_ type: T.Type) async throws -> T {
        var request = self
        let buffer = try await request.collectBody(upTo: .max)
        guard buffer.readableBytes > 0 else { throw OakError.invalid("body", "must be a JSON object") }
        return try Self.decodeJSON(type, from: Data(buffer: buffer))
    }

    /// Decodes a request body as `decodeJSON` does (the pages' forms are decoded this way too, as the JSON body
    /// the API would take).
    static func decodeJSON<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try rejectNULCharacters(in: data)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            // Foundation reports a number that does not fit an integer (2.5) as invalid JSON, without
            // its place: when the body does parse, name the fields holding such numbers.
            let fields = (try? JSONSerialization.jsonObject(with: data)).map { Self.fractionalNumbers(in: $0) } ?? []
            guard !fields.isEmpty else { throw OakError.validation([FieldError(field: "body", message: "is not valid JSON")]) }
            throw OakError.validation(fields.map { FieldError(field: $0, message: "must be a whole number") })
        } catch let error as DecodingError {
            throw OakError.validation([Self.fieldError(for: error)])
        }
    }

    /// SQLite text ends at a NUL character, so a string holding one would be stored cut short: such a body
    /// answers 400 naming every field (or key) that holds one, so what is acknowledged is what is stored.
    static func rejectNULCharacters(in data: Data) throws {
        guard holdsEscapedNUL(data), let body = try? JSONSerialization.jsonObject(with: data) else { return }
        let fields = stringsWithNUL(in: body)
        guard !fields.isEmpty else { return }
        throw OakError.validation(fields.map { FieldError(field: $0, message: "must not contain NUL characters") })
    }

    /// Whether the JSON escape of a NUL character (`\u0000`) is anywhere in a body: the quick test before a
    /// body is parsed to find where (Foundation's `Data.range(of:)` is too slow for every push body).
    static func holdsEscapedNUL(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            guard bytes.count >= 6 else { return false }
            for index in 0...(bytes.count - 6) where bytes[index] == UInt8(ascii: "\\") {
                if bytes[(index + 1)..<(index + 6)].elementsEqual("u0000".utf8) { return true }
            }
            return false
        }
    }

    /// The paths of the strings (values or keys) in a parsed body that contain a NUL character.
    static func stringsWithNUL(in value: Any, at path: String = "") -> [String] {
        switch value {
        case let object as [String: Any]:
            return object.keys.sorted().flatMap { key in
                let keyPath = path.isEmpty ? key : "\(path).\(key)"
                return key.contains("\0") ? [keyPath] : stringsWithNUL(in: object[key]!, at: keyPath)
            }
        case let array as [Any]:
            return array.enumerated().flatMap { stringsWithNUL(in: $1, at: "\(path)[\($0)]") }
        case let text as String:
            return text.contains("\0") ? [path.isEmpty ? "body" : path] : []
        default:
            return []
        }
    }

    /// The paths (as in field errors) of the numbers in a parsed body that are not whole or not in range.
    static func fractionalNumbers(in value: Any, at path: String = "") -> [String] {
        switch value {
        case let object as [String: Any]:
            return object.keys.sorted().flatMap { fractionalNumbers(in: object[$0]!, at: path.isEmpty ? $0 : "\(path).\($0)") }
        case let array as [Any]:
            return array.enumerated().flatMap { fractionalNumbers(in: $1, at: "\(path)[\($0)]") }
        case let number as NSNumber:  // true and false read as 1 and 0: whole
            let double = number.doubleValue
            return double.rounded() == double && abs(double) < 9.2e18 ? [] : [path]
        default:
            return []
        }
    }

    private static func fieldError(for error: DecodingError) -> FieldError {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "body" : keys.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .typeMismatch(let type, let context):
            return FieldError(field: path(context), message: "must be \(describe(type))")
        case .valueNotFound(let type, let context):
            return FieldError(field: path(context), message: "must be \(describe(type)), not null")
        case .keyNotFound(let key, let context):
            let field = path(context) == "body" ? key.stringValue : "\(path(context)).\(key.stringValue)"
            return FieldError(field: field, message: "is required")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return FieldError(field: "body", message: "is not valid JSON") }
            return FieldError(field: path(context), message: "is invalid")
        @unknown default:
            return FieldError(field: "body", message: "is invalid")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Double.Type: "a number"
        case is [String].Type: "an array of strings"
        case is [Any].Type: "an array"
        default: type == [String: Any].self ? "an object" : "a JSON object"
        }
    }
}
