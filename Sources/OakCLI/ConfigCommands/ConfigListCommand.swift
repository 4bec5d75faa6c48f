import Foundation

extension ConfigCommands {
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
}
