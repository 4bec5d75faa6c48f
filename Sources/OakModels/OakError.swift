import Foundation

/// The error codes of the v1 API, each with its HTTP status.
public enum ErrorCode: String, Codable, CaseIterable, Sendable {
    case validationError = "VALIDATION_ERROR"
    case unauthorized = "UNAUTHORIZED"
    case forbidden = "FORBIDDEN"
    case notFound = "NOT_FOUND"
    case methodNotAllowed = "METHOD_NOT_ALLOWED"
    case conflict = "CONFLICT"
    case gone = "GONE"
    case preconditionFailed = "PRECONDITION_FAILED"
    case payloadTooLarge = "PAYLOAD_TOO_LARGE"
    /// The whole request did not arrive in time; the connection is closed.
    case requestTimeout = "REQUEST_TIMEOUT"
    case unsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE"
    case rateLimited = "RATE_LIMITED"
    case serviceUnavailable = "SERVICE_UNAVAILABLE"
    case internalError = "INTERNAL_ERROR"

    /// The HTTP status code this error is answered with.
    public var httpStatus: Int {
        switch self {
        case .validationError: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .notFound: 404
        case .methodNotAllowed: 405
        case .conflict: 409
        case .gone: 410
        case .preconditionFailed: 412
        case .payloadTooLarge: 413
        case .requestTimeout: 408
        case .unsupportedMediaType: 415
        case .rateLimited: 429
        case .serviceUnavailable: 503
        case .internalError: 500
        }
    }
}

/// One invalid field of a request, as listed in `details.errors`.
public struct FieldError: Codable, Hashable, Sendable {
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }
}

/// An error every layer can throw; the server answers it with the error envelope.
public struct OakError: Error, Codable, Hashable, Sendable {
    public var code: ErrorCode
    public var message: String
    public var details: [String: JSONValue]?

    public init(_ code: ErrorCode, _ message: String, details: [String: JSONValue]? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// A 400 listing every invalid field in `details.errors`.
    public static func validation(_ errors: [FieldError]) -> OakError {
        let list = errors.map { JSONValue.object(["field": .string($0.field), "message": .string($0.message)]) }
        let message = errors.count == 1 ? "\(errors[0].field) \(errors[0].message)" : "Validation failed"
        return OakError(.validationError, message, details: ["errors": .array(list)])
    }

    /// A 400 for a single invalid field.
    public static func invalid(_ field: String, _ message: String) -> OakError {
        validation([FieldError(field: field, message: message)])
    }

    /// A 400 for a body field that names something that does not exist (a species, a source, a parent
    /// taxon): a validation error naming the field. The notes specification answers a note for an unknown
    /// species with 400, and its clients read 404 as "this id does not exist", so a reference in a body is
    /// the client's input to fix, never a 404; 404 stays for unknown ids in paths.
    public static func unknownReference(_ field: String, _ message: String) -> OakError {
        invalid(field, message)
    }

    /// A 409 for a change the resource's current state forbids (a note's species or source), naming the field.
    public static func conflicting(_ field: String, _ message: String) -> OakError {
        var error = invalid(field, message)
        error.code = .conflict
        return error
    }

    /// A 404 for an entity that does not exist.
    public static func notFound(_ entity: String, _ key: String) -> OakError {
        OakError(.notFound, "\(entity) '\(key)' not found")
    }

    /// The error in one line, as a person reads it: each field's message ("field: message; …"), or the message.
    public var summary: String {
        let fields = fieldErrors.map { "\($0.field): \($0.message)" }
        return fields.isEmpty ? message : fields.joined(separator: "; ")
    }

    /// The field errors carried by a validation error, if any.
    public var fieldErrors: [FieldError] {
        guard case .array(let list)? = details?["errors"] else { return [] }
        return list.compactMap { item in
            guard case .object(let object) = item, case .string(let field)? = object["field"],
                case .string(let message)? = object["message"]
            else { return nil }
            return FieldError(field: field, message: message)
        }
    }
}

/// The wire envelope of every error: `{"error": {"code", "message", "details"?}}`.
public struct ErrorEnvelope: Codable, Sendable {
    public var error: OakError

    public init(error: OakError) {
        self.error = error
    }
}
