import Foundation
import OakClient
import OakModels
import OakSync
import Observation

/// Settings: the server and API key, "test connection", sign out, and an export of the local notes.
@Observable @MainActor
public final class SettingsModel {
    /// What "test connection" found.
    public enum ConnectionResult: Hashable, Sendable {
        /// The server answered and accepted the key; its name and abilities.
        case connected(keyName: String, abilities: [String])
        /// The server answered; no key was given, so the app can read but not sync notes.
        case readOnly
        case failed(String)
    }

    /// What sign out needs from the user.
    public enum SignOutOutcome: Hashable, Sendable {
        case signedOut
        /// Changes have not reached the server: signing out with `discardingUnsynced` deletes them.
        case needsConfirmation(unsynced: Int)
    }

    public var serverURLText: String
    public var apiKeyText: String
    public private(set) var connection: ConnectionResult?
    public private(set) var isTesting = false
    /// Why the last save failed.
    public private(set) var errorMessage: String?
    weak var app: AppModel?
    private let preferences: any AppPreferences
    private let credentials: any CredentialStore
    private let transport: any HTTPTransport

    init(preferences: any AppPreferences, credentials: any CredentialStore, transport: any HTTPTransport) {
        self.preferences = preferences
        self.credentials = credentials
        self.transport = transport
        serverURLText = preferences.serverURL?.absoluteString ?? ""
        apiKeyText = (try? credentials.loadKey()) ?? nil ?? ""
    }

    /// Whether a server is set.
    public var isSignedIn: Bool { preferences.serverURL != nil }

    /// Asks the server to verify the key as typed (not yet saved).
    public func testConnection() async {
        guard let url = validatedURL() else { return }
        isTesting = true
        defer { isTesting = false }
        let key = apiKeyText.trimmingCharacters(in: .whitespacesAndNewlines)
        let client = DeviceServer(baseURL: url, apiKey: key.isEmpty ? nil : key, transport: transport, timeout: .seconds(10)).client
        do {
            _ = try await client.health()
            guard !key.isEmpty else {
                connection = .readOnly
                return
            }
            let verified = try await client.verifyKey()
            connection =
                verified.map { .connected(keyName: $0.name, abilities: $0.abilities.map(\.rawValue)) }
                ?? .failed("The server refused the API key.")
        } catch {
            connection = .failed(Self.describe(error))
        }
    }

    /// Saves the server and key (the key in the credential store) and reconnects sync; false when the URL is invalid.
    @discardableResult
    public func save() -> Bool {
        guard let url = validatedURL() else { return false }
        do {
            let key = apiKeyText.trimmingCharacters(in: .whitespacesAndNewlines)
            if key.isEmpty { try credentials.deleteKey() } else { try credentials.saveKey(key) }
        } catch {
            errorMessage = "Could not store the API key: \(error)"
            return false
        }
        preferences.setServerURL(url)
        app?.rebuildDevice()
        return true
    }

    /// Forgets the server and key. Notes and changes not yet synced stay on the device unless
    /// `discardingUnsynced`; with unsynced changes and no such confirmation, nothing happens and the
    /// outcome asks for it.
    public func signOut(discardingUnsynced: Bool = false) async -> SignOutOutcome {
        guard let app else { return .signedOut }
        let unsynced = (try? await app.store.pendingChangeCount()) ?? 0
        if unsynced > 0, !discardingUnsynced { return .needsConfirmation(unsynced: unsynced) }
        if discardingUnsynced { try? await app.store.discardUnsyncedChanges() }
        try? credentials.deleteKey()
        preferences.setServerURL(nil)
        serverURLText = ""
        apiKeyText = ""
        connection = nil
        app.rebuildDevice()
        return .signedOut
    }

    /// The user's notes (personal observations) as JSON, to share or keep.
    public func exportNotes() async throws -> Data {
        guard let app else { return Data("[]".utf8) }
        let notes = try await app.device.notes.notes().map(\.note)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(notes)
    }

    private func validatedURL() -> URL? {
        errorMessage = nil
        let text = serverURLText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
            errorMessage = "The server URL must start with https:// (or http://) and name a host, like https://oaks.example.org"
            return nil
        }
        return url
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? OakClientError else { return "\(error)" }
        switch error {
        case .server(401, _, _), .server(403, _, _): return "The server refused the API key."
        case .server(_, let body, _): return body.summary
        case .transport: return "The server cannot be reached."
        case .invalidResponse: return "The server's answer could not be read; is this an Oak Compendium server?"
        }
    }
}
