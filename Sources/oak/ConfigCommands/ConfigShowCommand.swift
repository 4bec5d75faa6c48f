import ArgumentParser
import OakCLI

/// `oak config show`.
struct ConfigShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the configuration file and what commands work on now.")
    @Option(name: [.customShort("p"), .customLong("profile")], help: "A profile to resolve instead of the default.") var profile: String?

    func run() async throws {
        try await reportingFailures {
            try ConfigCommands.show(environment: ConfigCommand.environment, options: .init(profile: profile), output: .standardOutput)
        }
    }
}
