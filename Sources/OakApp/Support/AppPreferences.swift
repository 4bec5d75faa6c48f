import Foundation

/// Where the app keeps its settings between launches (the API key is not here: it goes to the
/// credential store, the Keychain on iOS).
public protocol AppPreferences: Sendable {
    /// The server the app syncs with; nil when none is set.
    var serverURL: URL? { get }
    func setServerURL(_ url: URL?)
    /// Whether the original app's files were already moved into the store.
    var legacyFilesImported: Bool { get }
    func setLegacyFilesImported()
    /// Whether the user was told that the original app's files could not be moved (told once; the move is tried
    /// again at every launch).
    var legacyImportFailureShown: Bool { get }
    func setLegacyImportFailureShown()
}

/// Preferences in `UserDefaults` (the app's standard defaults on iOS).
public final class DefaultsPreferences: AppPreferences, @unchecked Sendable {
    private let defaults: UserDefaults

    public init(defaults: UserDefaults = .standard) {
        self.defaults = defaults
    }

    public var serverURL: URL? {
        defaults.string(forKey: "serverURL").flatMap(URL.init(string:))
    }

    public func setServerURL(_ url: URL?) {
        defaults.set(url?.absoluteString, forKey: "serverURL")
    }

    public var legacyFilesImported: Bool {
        defaults.bool(forKey: "legacyFilesImported")
    }

    public func setLegacyFilesImported() {
        defaults.set(true, forKey: "legacyFilesImported")
    }

    public var legacyImportFailureShown: Bool {
        defaults.bool(forKey: "legacyImportFailureShown")
    }

    public func setLegacyImportFailureShown() {
        defaults.set(true, forKey: "legacyImportFailureShown")
    }
}
