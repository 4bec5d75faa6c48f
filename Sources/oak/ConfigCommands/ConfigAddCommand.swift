import ArgumentParser
import OakCLI

/// `oak config add`.
struct ConfigAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add or replace a profile (the file is written with mode 0600).")
    @Argument(help: "The profile's name.") var name: String
    @Option(help: "The server's URL, e.g. https://oaks.example.org.") var url: String
    @Option(help: "The API key (default: ~/.oak/api_key).") var key: String?

    func run() async throws {
        try await reportingFailures {
            try ConfigCommands.add(environment: ConfigCommand.environment, name: name, url: url, key: key, output: .standardOutput)
        }
    }
}
