import ArgumentParser
import Foundation
import OakCLI

/// `oak version`: this build's versions, and the server's when a profile is in use.
struct VersionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print this oak's version, the API version it serves, and the server's versions when a profile is in use.",
        discussion: "Warns when the server's oldest supported client is newer than this oak.")

    @Flag(help: "Do not ask the server for its version.") var skipVersionCheck = false
    @Option(name: [.customShort("p"), .customLong("profile")], help: "Server profile from ~/.oak/config.yaml (env OAK_PROFILE).")
    var profile: String?
    @Flag(help: "Only this build's versions, even if a profile is set.") var local = false
    @Flag(help: "Print one JSON document instead of text.") var json = false

    func run() async throws {
        try await reportingFailures {
            let target = try Target.resolve(Target.Options(profile: profile, local: local), environment: ProcessInfo.processInfo.environment)
            try await ConfigCommands.version(
                target: target, format: json ? .json : .text, output: .standardOutput, errors: .standardError, skipCheck: skipVersionCheck)
        }
    }
}
