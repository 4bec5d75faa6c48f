import Foundation
import OakSync
import OakTestBasics
import OakTestSupport
import Testing

@Suite("Credential store")
struct CredentialStoreTests {
    @Test("The Linux file store keeps the key in ~/.oak/api_key (where the server and the CLI keep it) with mode 0600")
    func fileStore() throws {
        let home = temporaryDirectory("oak-home")
        #expect(FileCredentialStore.defaultURL(environment: ["HOME": home.path]).path == home.path + "/.oak/api_key")
        let store = FileCredentialStore(url: FileCredentialStore.defaultURL(environment: ["HOME": home.path]))
        #expect(try store.loadKey() == nil)
        try store.saveKey("first-key")
        try store.saveKey("second-key")
        #expect(try store.loadKey() == "second-key")
        let permissions = try FileManager.default.attributesOfItem(atPath: store.url.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        try store.deleteKey()
        #expect(try store.loadKey() == nil)
    }
}
