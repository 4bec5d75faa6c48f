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
