import Foundation

/// One field of a partial update: absent leaves it unchanged, `null` clears it.
public enum Patch<Value> {
    case absent
    case null
    case value(Value)

    /// The field's new value given its current one.
    public func applied(to current: Value?) -> Value? {
        switch self {
        case .absent: current
        case .null: nil
        case .value(let value): value
        }
    }

    /// The value given, if the request gave one.
    public var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }

    /// Whether the request named this field at all.
    public var isPresent: Bool {
        if case .absent = self { return false }
        return true
    }
}

extension Patch: Sendable where Value: Sendable {}
extension Patch: Equatable where Value: Equatable {}

extension Patch {
    /// The new list: `null` clears it to empty.
    public func applied<Element>(to current: [Element]) -> [Element] where Value == [Element] {
        switch self {
        case .absent: current
        case .null: []
        case .value(let value): value
        }
    }
}

extension KeyedDecodingContainer {
    /// Decodes a key that may be absent, `null` or a value.
    public func patch<T: Decodable>(_ key: Key, as type: T.Type = T.self) throws -> Patch<T> {
        guard contains(key) else { return .absent }
        if try decodeNil(forKey: key) { return .null }
        return .value(try decode(T.self, forKey: key))
    }
}

extension KeyedEncodingContainer {
    /// Encodes a patch field as a request carries it: absent leaves the key out, `null` clears it.
    public mutating func encode<T: Encodable>(_ patch: Patch<T>, forKey key: Key) throws {
        switch patch {
        case .absent: break
        case .null: try encodeNil(forKey: key)
        case .value(let value): try encode(value, forKey: key)
        }
    }

    /// Encodes an optional as an explicit `null` when it is nil (push requests and results, where `null`
    /// says something: no base version, a deleted note).
    public mutating func encodeNullable<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value {
            try encode(value, forKey: key)
        } else {
            try encodeNil(forKey: key)
        }
    }

    /// Encodes a list only when it has items. With `encodeIfPresent` for optionals this is the rule of
    /// every record the server answers with: absent values and empty lists are left out, as the original
    /// server writes them, and readers take a missing member as null or empty.
    public mutating func encodeUnlessEmpty<T: Encodable & Collection>(_ value: T, forKey key: Key) throws {
        if !value.isEmpty { try encode(value, forKey: key) }
    }
}
