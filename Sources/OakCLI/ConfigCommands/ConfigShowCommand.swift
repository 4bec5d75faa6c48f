import Foundation

extension ConfigCommands {
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
}
