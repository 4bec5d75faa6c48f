import Foundation

/// Collects every invalid field of a record so a 400 can name them all at once.
public struct Validator: Sendable {
    public private(set) var errors: [FieldError] = []

    public init() {}

    /// Records an error for `field`.
    public mutating func fail(_ field: String, _ message: String) {
        errors.append(FieldError(field: field, message: message))
    }

    /// A required text must be present and not blank.
    public mutating func require(_ value: String?, _ field: String) {
        if value?.isBlank ?? true {
            fail(field, "is required")
        }
    }

    /// A text, when present, must have a length within `range`.
    public mutating func length(_ value: String?, _ field: String, _ range: ClosedRange<Int>) {
        guard let value, !value.isEmpty || range.lowerBound > 0 else { return }
        if !range.contains(value.count) {
            fail(field, "must be \(range.lowerBound) to \(range.upperBound) characters long")
        }
    }

    /// A text, when present, must be one of `allowed`.
    public mutating func oneOf(_ value: String?, _ field: String, _ allowed: [String]) {
        guard let value else { return }
        if !allowed.contains(value) {
            fail(field, "must be one of: \(allowed.joined(separator: ", "))")
        }
    }

    /// Every element of a list must be a non-blank text of at most `maxLength` characters.
    public mutating func list(_ values: [String], _ field: String, maxLength: Int = 500) {
        if values.contains(where: { $0.isBlank || $0.count > maxLength }) {
            fail(field, "must contain non-empty texts of at most \(maxLength) characters")
        }
    }

    /// Throws a validation error naming every failed field, if any failed.
    public func check() throws {
        if !errors.isEmpty { throw OakError.validation(errors) }
    }
}

/// Limits shared by every record's validation.
public enum FieldLimits {
    /// The longest free text accepted in a descriptive field.
    public static let longText = 20_000
    /// The longest short text (names, authors, urls).
    public static let shortText = 1_000
}
