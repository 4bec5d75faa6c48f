import Foundation
import OakModels
import Testing

@Suite("Wire timestamps")
struct WireTimeTests {
    @Test("formatting agrees with Foundation's ISO 8601 from 1906 to 3000, and millisecond times round-trip exactly")
    func agreesWithFoundation() throws {
        var random = SystemRandomNumberGenerator()
        let reference = Date.ISO8601FormatStyle(timeZone: .gmt)
        for _ in 0..<2_000 {
            let milliseconds = Int64.random(in: -2_000_000_000_000...32_503_680_000_000, using: &random)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            #expect(WireTime.format(date) == reference.format(date))
            let precise = WireTime.formatPrecise(date)
            let fraction = (milliseconds % 1000 + 1000) % 1000
            #expect(precise.hasSuffix(String(format: ".%03dZ", fraction)), "\(precise) for \(milliseconds)")
            let parsed = try #require(WireTime.parse(precise))
            #expect(WireTime.formatPrecise(parsed) == precise)
            #expect(WireTime.milliseconds(parsed) == parsed)
        }
    }

    @Test("whole seconds, fractions of any length and offsets are accepted; garbage is not")
    func layouts() {
        #expect(WireTime.parse("2025-01-10T14:20:00Z")?.timeIntervalSince1970 == 1_736_518_800)
        #expect(WireTime.parse("2025-01-10T14:20:00.5Z")?.timeIntervalSince1970 == 1_736_518_800.5)
        #expect(WireTime.parse("2025-01-10T15:20:00+01:00")?.timeIntervalSince1970 == 1_736_518_800)
        #expect(WireTime.format(Date(timeIntervalSince1970: 1_736_518_800.999)) == "2025-01-10T14:20:00Z")
        for bad in ["", "yesterday", "2025-13-10T14:20:00Z", "2025-01-10 14:20:00", "2025-01-10T14:20:00.Z"] {
            #expect(WireTime.parse(bad) == nil, "\(bad)")
        }
    }
}
