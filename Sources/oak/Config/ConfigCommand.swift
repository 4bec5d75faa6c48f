import ArgumentParser
import Foundation
import OakCLI

/// `oak config show|list|use|add`.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Server profiles in ~/.oak/config.yaml (the original CLI's file).",
        subcommands: [Show.self, List.self, Use.self, Add.self])

    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the configuration file and what commands work on now.")
        @Option(name: [.customShort("p"), .customLong("profile")], help: "A profile to resolve instead of the default.") var profile: String?

        func run() async throws {
            try await reportingFailures {
                try ConfigCommands.show(environment: ConfigCommand.environment, options: .init(profile: profile), output: .standardOutput)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the profiles; * marks the default.")
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try await reportingFailures {
                try ConfigCommands.list(environment: ConfigCommand.environment, format: json ? .json : .text, output: .standardOutput)
            }
        }
    }

    struct Use: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a profile the default.")
        @Argument(help: "The profile.") var name: String

        func run() async throws {
            try await reportingFailures {
                try ConfigCommands.use(environment: ConfigCommand.environment, name: name, output: .standardOutput)
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add or replace a profile (the file is written with mode 0600).")
        @Argument(help: "The profile's name.") var name: String
        @Option(help: "The server's URL, e.g. https://oaks.example.org.") var url: String
        @Option(help: "The API key (default: ~/.oak/api_key).") var key: String?

        func run() async throws {
            try await reportingFailures {
                try ConfigCommands.add(environment: ConfigCommand.environment, name: name, url: url, key: key, output: .standardOutput)
            }
        }
    }
}
