import Foundation
import OakClient
import OakStore
import OakStoreSQLite

/// What a command works on, chosen as the original CLI chooses: `OAK_API_URL` (+ `OAK_API_KEY`), then
/// `--profile`, then `OAK_PROFILE`, then the configuration's `default_profile`; with none of them, or with
/// `--local`, the database file (`--database`, `OAK_DB`, default `./oak_compendium.db`).
public enum Target: Equatable, Sendable {
    case local(path: String)
    case remote(profile: String, url: URL, key: String?)

    /// The options every data command takes.
    public struct Options: Sendable {
        public var database: String?
        public var profile: String?
        public var local = false
        public var remote = false

        public init(database: String? = nil, profile: String? = nil, local: Bool = false, remote: Bool = false) {
            self.database = database
            self.profile = profile
            self.local = local
            self.remote = remote
        }
    }

    /// The database file when none is given: `OAK_DB`, then `OAK_DB_PATH` (the server's name for it),
    /// then `./oak_compendium.db` as the original CLI.
    public static func defaultDatabasePath(environment: [String: String]) -> String {
        ["OAK_DB", "OAK_DB_PATH"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? "./oak_compendium.db"
    }

    public static func resolve(_ options: Options, environment: [String: String]) throws -> Target {
        if options.local && options.remote { throw CLIError.usage("--local and --remote cannot be used together") }
        let localPath = options.database ?? defaultDatabasePath(environment: environment)
        if options.local || (options.database != nil && !options.remote && options.profile == nil) {
            return .local(path: localPath)
        }
        let configuration = try Configuration.load(from: Configuration.file(environment: environment))
        func remote(_ name: String, _ origin: String) throws -> Target {
            guard let profile = configuration.profiles[name] else {
                throw CLIError.usage("No profile named '\(name)'\(origin) in \(Configuration.file(environment: environment).path); see 'oak config list'")
            }
            return .remote(profile: name, url: try url(profile.url), key: profile.key ?? Configuration.ownerKey(environment: environment))
        }
        if let text = environment["OAK_API_URL"], !text.isEmpty {
            return .remote(profile: "OAK_API_URL", url: try url(text), key: environment["OAK_API_KEY"] ?? Configuration.ownerKey(environment: environment))
        }
        if let name = options.profile { return try remote(name, "") }
        if let name = environment["OAK_PROFILE"], !name.isEmpty { return try remote(name, " (from OAK_PROFILE)") }
        if let name = configuration.defaultProfile { return try remote(name, " (the default profile)") }
        if options.remote { throw CLIError.usage("--remote needs a server: give --profile, set OAK_PROFILE or OAK_API_URL, or 'oak config use NAME'") }
        return .local(path: localPath)
    }

    private static func url(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw CLIError.usage("'\(text)' is not a server URL (http:// or https://)")
        }
        return url
    }

    /// Refuses a database path that does not exist unless `create` is set, so a command run in the wrong
    /// folder does not quietly make a new database; `option` is the flag the message suggests.
    public static func requireDatabase(at path: String, create: Bool, option: String) throws {
        if !create && !FileManager.default.fileExists(atPath: path) {
            throw CLIError.usage("No database at \(path); give \(option) PATH, or --create to make a new one there")
        }
    }

    /// Opens the catalog. A database file that does not exist is refused unless `create` is set; it is then
    /// created empty but for the standard sources (no starter dataset: it is made to import into).
    public func open(create: Bool) throws -> any CatalogAccess {
        switch self {
        case .local(let path):
            try Self.requireDatabase(at: path, create: create, option: "--database")
            do {
                return try SQLiteStore(path: path, seedStarterData: false)
            } catch {
                throw CLIError.failure("Cannot open the database at \(path): \(error)")
            }
        case .remote(_, let url, let key):
            return RemoteCatalog(client: OakClient(configuration: OakClientConfiguration(baseURL: url, apiKey: key)))
        }
    }
}
