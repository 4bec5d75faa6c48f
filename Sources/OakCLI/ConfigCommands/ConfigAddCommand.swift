import Foundation

extension ConfigCommands {
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
