import ArgumentParser
import Foundation
import OakCLI

/// The options of every command that reads or writes the compendium: which database or server, and how to print.
struct CatalogOptions: ParsableArguments {
    @Option(name: [.customShort("d"), .customLong("database")], help: "SQLite database file (env OAK_DB or OAK_DB_PATH; default ./oak_compendium.db).")
    var database: String?

    @Flag(help: "Create the database file if it does not exist (empty but for the standard sources).")
    var create = false

    @Option(name: [.customShort("p"), .customLong("profile")], help: "Server profile from ~/.oak/config.yaml (env OAK_PROFILE).")
    var profile: String?

    @Flag(help: "Work on the database file even if a profile is set.")
    var local = false

    @Flag(help: "Work on the server (the profile given, OAK_PROFILE, OAK_API_URL or the default profile).")
    var remote = false

    @Flag(help: "Print one JSON document instead of text.")
    var json = false

    @Flag(name: .shortAndLong, help: "Name the database or server used, on stderr.")
    var verbose = false

    var target: Target.Options {
        Target.Options(database: database, profile: profile, local: local, remote: remote)
    }

    /// Runs a command body on the resolved catalog; a failure is one line on stderr and its exit code.
    func run(_ body: (CommandContext) async throws -> Void) async throws {
        try await reportingFailures {
            let environment = ProcessInfo.processInfo.environment
            let resolved = try Target.resolve(target, environment: environment)
            let catalog = try resolved.open(create: create)
            if verbose { OutputStream.standardError.line("Using the \(catalog.location)") }
            try await body(CommandContext(catalog: catalog, target: resolved, environment: environment, format: json ? .json : .text))
        }
    }
}

/// Runs `body`, turning any failure into "error: …" on stderr and the documented exit code.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        let failure = CLIError(error)
        OutputStream.standardError.line("error: \(failure.description)")
        throw ExitCode(failure.exitCode)
    }
}
