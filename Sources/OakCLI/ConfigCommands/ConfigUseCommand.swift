import Foundation

extension ConfigCommands {
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
}
