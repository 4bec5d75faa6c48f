import Foundation
import OakSync
import Testing

@Suite("Credential store")
struct CredentialStoreTests {
    @Test("The Linux file store keeps the key in the config directory with mode 0600")
    func fileStore() throws {
        let config = temporaryDirectory("oak-config")
        #expect(FileCredentialStore.defaultURL(environment: ["XDG_CONFIG_HOME": config.path]).path == config.path + "/oak/api_key")
        let store = FileCredentialStore(url: FileCredentialStore.defaultURL(environment: ["XDG_CONFIG_HOME": config.path]))
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
