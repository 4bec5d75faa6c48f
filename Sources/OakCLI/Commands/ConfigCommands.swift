import Foundation

/// `oak config show|list|use|add`: the profiles in `~/.oak/config.yaml`.
public enum ConfigCommands {
    /// The file and what a command would work on now.
    public static func show(environment: [String: String], options: Target.Options, output: OutputStream) throws {
        let file = Configuration.file(environment: environment)
        output.line("Configuration: \(file.path)\(FileManager.default.fileExists(atPath: file.path) ? "" : " (none yet)")")
        switch try Target.resolve(options, environment: environment) {
        case .local(let path):
            output.line("Mode: local, database \(path)")
        case .remote(let profile, let url, let key):
            output.line("Mode: remote, profile \(profile), server \(url.absoluteString), key \(Configuration.masked(key))")
        }
    }

    public static func list(environment: [String: String], format: OutputFormat, output: OutputStream) throws {
        let configuration = try Configuration.load(from: Configuration.file(environment: environment))
        if format == .json {
            struct Listed: Encodable {
                var name, url: String
                var isDefault: Bool
                enum CodingKeys: String, CodingKey {
                    case name, url
                    case isDefault = "default"
                }
            }
            let listed = configuration.profiles.keys.sorted().map {
                Listed(name: $0, url: configuration.profiles[$0]!.url, isDefault: $0 == configuration.defaultProfile)
            }
            return output.line(try CLIJSON.text(listed))
        }
        guard !configuration.profiles.isEmpty else {
            return output.line("No profiles; add one with 'oak config add NAME --url URL [--key KEY]'.")
        }
        var table = Table("", "PROFILE", "URL", "KEY")
        for name in configuration.profiles.keys.sorted() {
            let profile = configuration.profiles[name]!
            table.add(name == configuration.defaultProfile ? "*" : "", name, profile.url, Configuration.masked(profile.key))
        }
        output.line(table.text)
    }

    public static func use(environment: [String: String], name: String, output: OutputStream) throws {
        let file = Configuration.file(environment: environment)
        var configuration = try Configuration.load(from: file)
        guard configuration.profiles[name] != nil else {
            throw CLIError.usage("No profile named '\(name)'; the profiles are: \(configuration.profiles.keys.sorted().joined(separator: ", "))")
        }
        configuration.defaultProfile = name
        try configuration.save(to: file)
        output.line("Default profile: \(name)")
    }

    public static func add(environment: [String: String], name: String, url: String, key: String?, output: OutputStream) throws {
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
            throw CLIError.usage("'\(url)' is not a server URL (http:// or https://)")
        }
        let file = Configuration.file(environment: environment)
        var configuration = try Configuration.load(from: file)
        let replaced = configuration.profiles[name] != nil
        configuration.profiles[name] = Configuration.Profile(url: url, key: key)
        try configuration.save(to: file)
        output.line("\(replaced ? "Updated" : "Added") profile \(name) (\(url)) in \(file.path)")
    }
}
