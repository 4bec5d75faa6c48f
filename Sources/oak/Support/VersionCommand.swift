import ArgumentParser
import OakModels

/// `oak version`: this build's API version and the oldest client it works with.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version", abstract: "Print the API version this build serves and the oldest client it supports.")

    func run() {
        let version = VersionInfo.current
        print("oak \(version.api)")
        print("API version: \(version.api)")
        print("Minimum client version: \(version.minClient)")
    }
}
