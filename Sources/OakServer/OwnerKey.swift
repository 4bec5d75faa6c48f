import Foundation

/// The owner API key: from `OAK_API_KEY`, else from a key file created (mode 0600) on first start.
public struct OwnerKey: Sendable {
    public let value: String
    /// Where the key came from, for the start-up message.
    public let origin: Origin

    public enum Origin: Sendable, Equatable {
        case environment
        case file(path: String)
        /// Newly written to the file: the one time it is shown.
        case generated(path: String)
    }

    /// `~/.oak/api_key`.
    public static var defaultFile: String {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home).appendingPathComponent(".oak/api_key").path
    }

    /// Resolves the key; with `regenerate` a new key replaces the file's.
    public static func resolve(
        environment: [String: String] = ProcessInfo.processInfo.environment, file: String = defaultFile,
        regenerate: Bool = false
    ) throws -> OwnerKey {
        if !regenerate, let key = environment["OAK_API_KEY"]?.trimmingCharacters(in: .whitespacesAndNewlines), !key.isEmpty {
            return OwnerKey(value: key, origin: .environment)
        }
        if !regenerate, let text = try? String(contentsOfFile: file, encoding: .utf8) {
            let key = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !key.isEmpty { return OwnerKey(value: key, origin: .file(path: file)) }
        }
        let key = generate()
        let url = URL(fileURLWithPath: file)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // Created empty with mode 0600 first, so the key is never readable by others, not even briefly.
        guard FileManager.default.createFile(atPath: file, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file])
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        try Data((key + "\n").utf8).write(to: url)
        return OwnerKey(value: key, origin: .generated(path: file))
    }

    /// 32 random bytes as 64 hex characters.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }.hexString
    }
}
