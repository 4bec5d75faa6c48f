import Synchronization

/// Ids for requests that bring none: UUIDs in the version 4 layout, from a random base drawn once at start
/// plus a counter. `UUID()` asks the system's random source on every call, a syscall per request (see
/// BENCHMARKS.md, "Server round 2", item 5); a request id has to be unique, not unpredictable.
final class RequestIDs: Sendable {
    private static let hexDigits = Array("0123456789abcdef".utf8)
    private let high: UInt64
    private let low: UInt64
    private let counter = Atomic<UInt64>(0)

    init() {
        var random = SystemRandomNumberGenerator()
        high = random.next()
        low = random.next()
    }

    /// The next id, lower case: `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`.
    func next() -> String {
        let count = counter.wrappingAdd(1, ordering: .relaxed).newValue
        // Version 4 in the 13th digit, the RFC 4122 variant in the top bits of the 17th.
        let first = (high & ~0xF000) | 0x4000
        let second = ((low &+ count) & ~(0xC << 60)) | (0x8 << 60)
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var index = 0
            var digit = 0
            for word in [first, second] {
                for shift in stride(from: 60, through: 0, by: -4) {
                    if digit == 8 || digit == 12 || digit == 16 || digit == 20 {
                        buffer[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    buffer[index] = Self.hexDigits[Int((word >> UInt64(shift)) & 0xF)]
                    index += 1
                    digit += 1
                }
            }
            return index
        }
    }
}
