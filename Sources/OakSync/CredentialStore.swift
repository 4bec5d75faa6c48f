import Foundation

#if canImport(Security)
import Security
#endif

/// Keeps the API key between launches.
public protocol CredentialStore: Sendable {
    func loadKey() throws -> String?
    func saveKey(_ key: String) throws
    func deleteKey() throws
}

/// The credential store for the current platform: the Keychain on Apple platforms, a 0600 file elsewhere.
public func makeDefaultCredentialStore() -> any CredentialStore {
    #if canImport(Security)
    KeychainCredentialStore()
    #else
    FileCredentialStore()
    #endif
}

/// The key in a file readable by its owner only (mode 0600), by default `~/.oak/api_key`: the file the
/// server writes its owner key to and the `oak` CLI falls back on, so all three agree.
public struct FileCredentialStore: CredentialStore {
    public let url: URL

    public init(url: URL = FileCredentialStore.defaultURL()) {
        self.url = url
    }

    /// `~/.oak/api_key` (`HOME` from `environment`).
    public static func defaultURL(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let home =
            environment["HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
        return home.appendingPathComponent(".oak", isDirectory: true).appendingPathComponent("api_key")
    }

    public func loadKey() throws -> String? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let key = try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return key.isEmpty ? nil : key
    }

    /// Writes the key to a new 0600 file that then replaces the old one, so it is never readable by others.
    public func saveKey(_ key: String) throws {
        let manager = FileManager.default
        let directory = url.deletingLastPathComponent()
        try manager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = directory.appendingPathComponent(".api_key.\(UUID().uuidString)")
        guard manager.createFile(atPath: temporary.path, contents: Data(key.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        guard rename(temporary.path, url.path) == 0 else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EIO
            try? manager.removeItem(at: temporary)
            throw POSIXError(code)
        }
    }

    public func deleteKey() throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        try FileManager.default.removeItem(at: url)
    }
}

#if canImport(Security)
/// The key as a generic password in the Keychain.
public struct KeychainCredentialStore: CredentialStore {
    public let service: String
    public let account: String

    public init(service: String = "org.oakcompendium.api", account: String = "api_key") {
        self.service = service
        self.account = account
    }

    private var query: [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account]
    }

    public func loadKey() throws -> String? {
        var query = query
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &item)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = item as? Data else { throw KeychainError(status: status) }
        return String(decoding: data, as: UTF8.self)
    }

    public func saveKey(_ key: String) throws {
        let data = Data(key.utf8)
        let status = SecItemUpdate(query as CFDictionary, [kSecValueData as String: data] as CFDictionary)
        if status == errSecItemNotFound {
            var item = query
            item[kSecValueData as String] = data
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
            let added = SecItemAdd(item as CFDictionary, nil)
            guard added == errSecSuccess else { throw KeychainError(status: added) }
        } else if status != errSecSuccess {
            throw KeychainError(status: status)
        }
    }

    public func deleteKey() throws {
        let status = SecItemDelete(query as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
    }
}

/// A Keychain call failed with this `OSStatus`.
public struct KeychainError: Error, Sendable {
    public let status: OSStatus
}
#endif
