import ArgumentParser
import OakCLI

/// `oak config use`.
struct ConfigUseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "use", abstract: "Make a profile the default.")
    @Argument(help: "The profile.") var name: String

    func run() async throws {
        try await reportingFailures {
            try ConfigCommands.use(environment: ConfigCommand.environment, name: name, output: .standardOutput)
        }
    }
}
