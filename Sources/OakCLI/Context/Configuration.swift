import Foundation
import OakSync
import Yams

/// `~/.oak/config.yaml`, in the original CLI's format: named server profiles and a default one.
///
/// ```yaml
/// profiles:
///   prod: {url: https://oaks.example.org, key: "…"}
/// default_profile: prod
/// ```
public struct Configuration: Codable, Equatable, Sendable {
    public struct Profile: Codable, Equatable, Sendable {
        public var url: String
        /// The profile's key; without one, `~/.oak/api_key` is used.
        public var key: String?

        public init(url: String, key: String? = nil) {
            self.url = url
            self.key = key
        }
    }

    public var profiles: [String: Profile]
    public var defaultProfile: String?

    public init(profiles: [String: Profile] = [:], defaultProfile: String? = nil) {
        self.profiles = profiles
        self.defaultProfile = defaultProfile
    }

    enum CodingKeys: String, CodingKey {
        case profiles
        case defaultProfile = "default_profile"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        profiles = try container.decodeIfPresent([String: Profile].self, forKey: .profiles) ?? [:]
        let name = try container.decodeIfPresent(String.self, forKey: .defaultProfile)
        defaultProfile = name?.isEmpty == true ? nil : name
    }

    /// The directory of the server's owner key, the profiles and the caches: `~/.oak`.
    public static func directory(environment: [String: String]) -> URL {
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".oak")
    }

    public static func file(environment: [String: String]) -> URL {
        directory(environment: environment).appendingPathComponent("config.yaml")
    }

    /// The owner key file the server writes (`~/.oak/api_key`), the fallback key of every profile.
    public static func ownerKey(environment: [String: String]) -> String? {
        try? FileCredentialStore(url: FileCredentialStore.defaultURL(environment: environment)).loadKey()
    }

    /// Reads the file; a missing file is an empty configuration.
    public static func load(from url: URL) throws -> Configuration {
        guard FileManager.default.fileExists(atPath: url.path) else { return Configuration() }
        do {
            let text = try String(contentsOf: url, encoding: .utf8)
            if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return Configuration() }
            return try YAMLDecoder().decode(Configuration.self, from: text)
        } catch {
            throw CLIError.invalid("Cannot read \(url.path): \(error)")
        }
    }

    /// Writes the file, readable only by its owner (it holds keys).
    public func save(to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let text = try YAMLEncoder().encode(self)
        guard FileManager.default.createFile(atPath: url.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CLIError.failure("Cannot write \(url.path)")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }

    /// A key shown without revealing it: its first and last four characters.
    public static func masked(_ key: String?) -> String {
        guard let key, !key.isEmpty else { return "(none)" }
        return key.count <= 8 ? String(repeating: "*", count: key.count) : "\(key.prefix(4))…\(key.suffix(4))"
    }
}
