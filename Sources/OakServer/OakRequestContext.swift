import Foundation
import Hummingbird
import HummingbirdCore
import OakModels
import OakStore

/// The request context of every route: JSON coding configured for the v1 wire format.
public struct OakRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's IP address, from the socket.
    public let socketAddress: String?
    /// The request's id, echoed in `X-Request-ID`.
    public var requestID = ""
    /// The client's IP address: the socket's, or a trusted proxy's header.
    public var clientIP = "unknown"
    /// The data version the response cache read for this request, so the route reads it no second time
    /// (on PostgreSQL each read is a round trip).
    var dataVersion: DataVersion?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.socketAddress = source.channel.remoteAddress?.ipAddress
    }

    public var requestDecoder: JSONDecoder { JSONDecoder() }

    public var responseEncoder: JSONEncoder { WireJSON.encoder }
}

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

    /// The query parameters, parsed once for any number of look-ups (each read of `uri.queryParameters`
    /// parses the whole query again).
    var queryValues: QueryValues { QueryValues(uri.queryParameters) }
}

extension HTTPFields {
    /// Whether `If-None-Match` names `etag` (or `*`), compared weakly as RFC 9110 asks (a `W/` prefix ignored).
    func ifNoneMatchMatches(_ etag: String) -> Bool {
        guard let header = self[.ifNoneMatch] else { return false }
        if header == etag { return true }
        return header.split(separator: ",").contains {
            let tag = $0.trimmingWhitespace
            let opaque = tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
            return opaque == "*" || opaque == etag
        }
    }
}

/// A request's query parameters, percent-decoded, with the typed look-ups the routes share.
struct QueryValues {
    private let parameters: FlatDictionary<Substring, Substring>

    init(_ parameters: FlatDictionary<Substring, Substring>) {
        self.parameters = parameters
    }

    /// A parameter's text.
    func string(_ name: String) -> String? {
        parameters[name[...]].map(String.init)
    }

    /// An integer parameter; a non-integer answers 400.
    func int(_ name: String) throws -> Int? {
        guard let text = try typed(name) else { return nil }
        guard let value = Int(text) else { throw OakError.invalid(name, "must be an integer") }
        return value
    }

    /// A boolean parameter (`true`/`false`, `1`/`0`, `yes`/`no`); anything else answers 400.
    func bool(_ name: String) throws -> Bool? {
        guard let text = try typed(name)?.lowercased() else { return nil }
        switch text {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw OakError.invalid(name, "must be true or false")
        }
    }

    /// A number's or a flag's text; nil when absent or empty. Given more than once (`limit=1&limit=2`) it has no
    /// one value, and answers 400 rather than taking the first.
    private func typed(_ name: String) throws -> Substring? {
        let values = parameters[values: name[...]]
        if values.count > 1 { throw OakError.invalid(name, "must be given once") }
        guard let text = values.first, !text.isEmpty else { return nil }
        return text
    }

    /// `limit` and `offset`: limit defaults to 50 and is clamped to the maximum; both must be in range.
    func pageBounds() throws -> (limit: Int, offset: Int) {
        var validator = Validator()
        let limit = try int("limit") ?? Pagination.defaultLimit
        let offset = try int("offset") ?? 0
        if limit < 1 { validator.fail("limit", "must be at least 1") }
        if offset < 0 { validator.fail("offset", "must not be negative") }
        try validator.check()
        return (min(limit, Pagination.maxLimit), offset)
    }
}

extension RequestContext {
    /// A path parameter, percent-decoded. A NUL character (`%00`) answers 400: SQLite would read the text
    /// only up to it, so `alba%00zzz` could reach `alba`.
    func pathParameter(_ name: String) throws -> String {
        try Self.decodedPathParameter(try parameters.require(name), name: name)
    }

    /// A path parameter's text (`raw`, as in the request target) percent-decoded; 400 naming it for a NUL.
    static func decodedPathParameter(_ raw: String, name: String) throws -> String {
        let decoded = raw.percentDecoded
        // A byte scan: Foundation's substring search is slow on every request.
        if decoded.utf8.contains(0) { throw OakError.invalid(name, "must not contain NUL characters") }
        return decoded
    }

    /// An integer path parameter; anything else answers 400.
    func pathInt(_ name: String) throws -> Int {
        guard let value = Int(try pathParameter(name)) else { throw OakError.invalid(name, "must be an integer") }
        return value
    }
}

/// A JSON response with a status code.
struct JSONResponse<Body: Encodable & Sendable>: ResponseGenerator {
    var status: HTTPResponse.Status = .ok
    var body: Body

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try WireJSON.encoder.encode(body, from: request, context: context)
        response.status = status
        return response
    }
}

extension Response {
    /// A response whose body is JSON already encoded.
    static func json(_ body: ByteBuffer, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }
}

extension String {
    /// The text percent-decoded (as is when it is not valid percent-encoding). Only text holding a `%` goes
    /// through Foundation's decoding, which is slow on every request.
    var percentDecoded: String {
        utf8.contains(UInt8(ascii: "%")) ? removingPercentEncoding ?? self : self
    }
}
