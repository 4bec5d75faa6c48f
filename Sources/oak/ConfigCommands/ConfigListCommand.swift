import ArgumentParser
import OakCLI

/// `oak config list`.
struct ConfigListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the profiles; * marks the default.")
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        try await reportingFailures {
            try ConfigCommands.list(environment: ConfigCommand.environment, format: json ? .json : .text, output: .standardOutput)
        }
    }
}
