import Foundation
import OakServer
import OakTestBasics
import OakTestSupport
import Testing

@Suite("Owner key")
struct OwnerKeyTests {
    func keyFile() -> String {
        temporaryDirectory("oak-key").appendingPathComponent(".oak/api_key").path
    }

    @Test("the owner key is generated on first start into a file with mode 0600, then reused")
    func generatedOnce() throws {
        let file = keyFile()
        let first = try OwnerKey.resolve(environment: [:], file: file)
        #expect(first.origin == .generated(path: file))
        #expect(first.value.count == 64)
        let permissions = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber
        #expect(permissions?.intValue == 0o600)
        let second = try OwnerKey.resolve(environment: [:], file: file)
        #expect(second.value == first.value)
        #expect(second.origin == .file(path: file))
    }

    @Test("OAK_API_KEY takes precedence over the key file")
    func environmentFirst() throws {
        let key = try OwnerKey.resolve(environment: ["OAK_API_KEY": "from-env"], file: keyFile())
        #expect(key.value == "from-env")
        #expect(key.origin == .environment)
    }

    @Test("--regenerate-key replaces the stored key")
    func regenerate() throws {
        let file = keyFile()
        let first = try OwnerKey.resolve(environment: [:], file: file)
        let second = try OwnerKey.resolve(environment: [:], file: file, regenerate: true)
        #expect(second.value != first.value)
        #expect(try OwnerKey.resolve(environment: [:], file: file).value == second.value)
    }
}
