import NIOCore
import OakStoreKit
import PostgresNIO

/// One column of many rows as a statement's parameter: a PostgreSQL array in its binary format (`array_recv`: the
/// number of dimensions, whether any element is NULL, the element type, the length and lower bound, then each
/// element's length, -1 for NULL, and its bytes), so that `unnest` hands PostgreSQL the rows with nothing to parse.
/// PostgresNIO encodes `[String]` and `[Int]` so, but not lists with NULLs, which a table's columns have.
struct StoredColumn: PostgresDynamicTypeEncodable {
    private let values: [StoredValue]
    let psqlType: PostgresDataType
    private let elementType: PostgresDataType

    /// A column of values of `template`'s kind (NULL or not): `bigint[]` for an integer, `text[]` otherwise.
    init(_ values: [StoredValue], like template: StoredValue) {
        self.values = values
        (psqlType, elementType) = Self.types(like: template)
    }

    /// The type of a column of values of `template`'s kind.
    static func type(like template: StoredValue) -> PostgresDataType {
        types(like: template).column
    }

    /// The types of a column of values of `template`'s kind and of its elements.
    private static func types(like template: StoredValue) -> (column: PostgresDataType, element: PostgresDataType) {
        if case .integer = template { (.int8Array, .int8) } else { (.textArray, .text) }
    }

    var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        buffer.writeInteger(Int32(values.isEmpty ? 0 : 1))
        buffer.writeInteger(Int32(values.contains(.null) ? 1 : 0))
        buffer.writeInteger(elementType.rawValue)
        guard !values.isEmpty else { return }
        buffer.writeInteger(Int32(values.count))
        buffer.writeInteger(Int32(1))
        for value in values {
            switch value {
            case .null:
                buffer.writeInteger(Int32(-1))
            case .integer(let number):
                buffer.writeInteger(Int32(8))
                buffer.writeInteger(number)
            case .text(let text):
                let lengthIndex = buffer.writerIndex
                buffer.writeInteger(Int32(0))
                let written = buffer.writeString(text)
                buffer.setInteger(Int32(written), at: lengthIndex)
            }
        }
    }
}
