import Foundation
import OakClient
import OakModels

extension ConfigCommands {
    /// What `oak version` reports.
    struct VersionReport: Encodable {
        var client: String
        var api: String
        var minClient: String
        var server: String?
        var serverVersion: VersionInfo?
        var warning: String?
    }

    /// Prints the versions; with a remote target (and no `skipCheck`) asks the server's `/health` too.
    public static func version(target: Target, format: OutputFormat, output: OutputStream, errors: OutputStream, skipCheck: Bool) async throws {
        let current = VersionInfo.current
        var report = VersionReport(client: current.api, api: current.api, minClient: current.minClient)
        var failure: CLIError?
        if case .remote(_, let url, let key) = target, !skipCheck {
            report.server = url.absoluteString
            do {
                let health = try await OakClient(configuration: OakClientConfiguration(baseURL: url, apiKey: key)).health()
                report.serverVersion = health.version
                if let minimum = health.version?.minClient, VersionInfo.isVersion(current.api, olderThan: minimum) {
                    report.warning = "this oak (\(current.api)) is older than the oldest client the server supports (\(minimum)); update oak"
                }
            } catch {
                failure = CLIError(error)
            }
        }
        switch format {
        case .json:
            output.line(try CLIJSON.text(report))
        case .text:
            output.line("oak \(report.client)")
            output.line("API version: \(report.api)")
            output.line("Minimum client version: \(report.minClient)")
            if let server = report.server, let version = report.serverVersion {
                output.line("Server \(server): API version \(version.api), minimum client version \(version.minClient)")
            } else if let server = report.server, failure == nil {
                output.line("Server \(server): does not report its version")
            }
        }
        if let warning = report.warning { errors.line("warning: \(warning)") }
        if let failure { throw failure }
    }
}
