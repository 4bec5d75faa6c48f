import NIOCore
import OakStoreKit
import PostgresNIO

/// The columns of a row that PostgreSQL sent as one value, `ROW(…)` in the binary format (`record_send`: the number
/// of columns, then each column's type, its length, -1 for NULL, and its bytes). A wide row so crosses the wire as
/// one cell instead of one a column: PostgresNIO decodes and hands over each cell on its own, which costs more than
/// the value (see BENCHMARKS.md, "PostgreSQL beside SQLite", 2026-12-02).
struct PackedColumns: ColumnReader {
    private let record: ByteBuffer
    /// Each column's start in `record` and its length (-1 for NULL), one after the other.
    private let bounds: [Int32]

    /// The columns of a `ROW(…)` cell; nil when the cell is not one.
    init?(_ cell: ByteBuffer?) {
        guard var record = cell, let count = record.readInteger(as: Int32.self), count >= 0 else { return nil }
        // Each column takes at least 8 bytes: a count larger than that allows is not a row's.
        guard Int(count) <= record.readableBytes / 8 else { return nil }
        var bounds: [Int32] = []
        bounds.reserveCapacity(Int(count) * 2)
        for _ in 0..<count {
            guard record.readInteger(as: UInt32.self) != nil, let length = record.readInteger(as: Int32.self) else { return nil }
            bounds.append(Int32(record.readerIndex))
            bounds.append(length)
            guard length <= 0 || record.readableBytes >= Int(length) else { return nil }
            if length > 0 { record.moveReaderIndex(forwardBy: Int(length)) }
        }
        record.moveReaderIndex(to: 0)
        self.record = record
        self.bounds = bounds
    }

    func isNull(_ index: Int32) -> Bool {
        bounds[Int(index) * 2 + 1] < 0
    }

    func int(_ index: Int32) -> Int64 {
        let start = Int(bounds[Int(index) * 2])
        switch bounds[Int(index) * 2 + 1] {
        case 8: return record.getInteger(at: start, as: Int64.self) ?? 0
        case 4: return record.getInteger(at: start, as: Int32.self).map(Int64.init) ?? 0
        case 2: return record.getInteger(at: start, as: Int16.self).map(Int64.init) ?? 0
        default: return 0
        }
    }

    func withText<T>(_ index: Int32, _ body: (UnsafeBufferPointer<UInt8>?) throws -> T) rethrows -> T {
        let (start, length) = (Int(bounds[Int(index) * 2]), Int(bounds[Int(index) * 2 + 1]))
        guard length >= 0 else { return try body(nil) }
        return try record.withUnsafeReadableBytes { raw in
            try body(UnsafeBufferPointer(start: raw.baseAddress.map { ($0 + start).assumingMemoryBound(to: UInt8.self) }, count: length))
        }
    }
}
