import OakModels
import Testing

@Suite("Hex strings")
struct HexStringTests {
    @Test("bytes become two lowercase digits each, as token hashes stored by earlier versions were written")
    func lowercasePairs() {
        #expect([0x00, 0x0F, 0xA5, 0xFF, 0x10].hexString == "000fa5ff10")
        #expect([UInt8]().hexString == "")
    }
}

extension HexStringTests {
    @Test("a strong ETag is the first 16 bytes of a digest as 32 lowercase digits in quotes; fewer bytes give fewer digits")
    func strongETags() {
        let digest = (0..<32).map { UInt8($0 * 8) }
        #expect(digest.strongETag == "\"" + digest.prefix(16).hexString + "\"")
        #expect(digest.strongETag == "\"00081018202830384048505860687078\"")
        #expect([0xAB].strongETag == "\"ab\"")
        #expect([UInt8]().strongETag == "\"\"")
    }
}
