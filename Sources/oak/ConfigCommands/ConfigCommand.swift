import ArgumentParser
import Foundation

/// `oak config show|list|use|add`.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Server profiles in ~/.oak/config.yaml (the original CLI's file).",
        subcommands: [ConfigShowCommand.self, ConfigListCommand.self, ConfigUseCommand.self, ConfigAddCommand.self])

    static var environment: [String: String] { ProcessInfo.processInfo.environment }
}
