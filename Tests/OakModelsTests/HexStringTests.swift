import Foundation
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

extension HexStringTests {
    @Test("an id is written lowercase and hyphenated, as Foundation's uuidString lowercased, for any id")
    func wireIDs() throws {
        let fixed = try #require(UUID(uuidString: "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9"))
        #expect(fixed.wireString == "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9")
        #expect(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)).wireString == "00000000-0000-0000-0000-000000000000")
        for _ in 0..<1_000 {
            let id = UUID()
            #expect(id.wireString == id.uuidString.lowercased())
        }
    }

    @Test("an id is read in either case as Foundation reads it; any other length, hyphen place or character is refused")
    func readingWireIDs() throws {
        for _ in 0..<1_000 {
            let id = UUID()
            #expect(UUID(wireString: id.wireString) == id)
            #expect(UUID(wireString: id.uuidString) == id)
            #expect(UUID(wireString: id.wireString) == UUID(uuidString: id.wireString))
        }
        #expect(UUID(wireString: "0a1B2c3D-4e5f-6071-8293-A4b5c6d7e8f9")?.wireString == "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9")
        let refused = [
            "", "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f", "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f90", "0a1b2c3d4e5f60718293a4b5c6d7e8f9",
            "0a1b2c3-d4e5f-6071-8293-a4b5c6d7e8f9", "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8g9", "{0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f}",
            " a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9", "+a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9", "0a1b2c3d-4e5f-6071-8293_a4b5c6d7e8f9",
            "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8é",
        ]
        for text in refused {
            #expect(UUID(wireString: text) == nil, "\(text)")
        }
    }
}
