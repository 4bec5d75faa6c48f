import Foundation

/// Runs `$VISUAL` or `$EDITOR` (default `vi`) on a YAML document until what is saved is accepted.
///
/// The text lives in a recoverable file under `~/.oak/edits/` while the session lasts. After each save the
/// document is applied; when that fails with invalid data, the editor opens again with the errors as
/// comments on top and the user's text kept. Quitting without saving changes nothing. When the editor fails,
/// or the user quits after an error without fixing it, the text stays in its file and the path is printed.
public struct Editor: Sendable {
    public var command: String
    public var directory: URL

    public init(environment: [String: String]) {
        command = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
        directory = Configuration.directory(environment: environment).appendingPathComponent("edits")
    }

    /// Edits `document`; `apply` receives the saved text and returns what it made of it, or throws
    /// `CLIError.invalid` to have the errors shown in the editor. Nil when nothing was changed.
    public func edit<Value>(_ document: String, name: String, messages: OutputStream, apply: (String) async throws -> Value) async throws -> Value? {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let stamp = Int(Date().timeIntervalSince1970 * 1000)
        let file = directory.appendingPathComponent("\(name.filter { $0.isLetter || $0.isNumber || $0 == "-" })-\(stamp).yaml")
        var shown = document
        var failedBefore = false
        while true {
            try write(shown, to: file)
            try run(file)
            let saved = try String(contentsOf: file, encoding: .utf8)
            if saved == shown {
                if failedBefore {
                    messages.line("Nothing saved after the errors; your text is kept in \(file.path)")
                    throw CLIError.failure("Not saved: the document still has errors")
                }
                try? FileManager.default.removeItem(at: file)
                return nil
            }
            do {
                let value = try await apply(Self.withoutErrors(saved))
                try? FileManager.default.removeItem(at: file)
                return value
            } catch let error where Self.isInvalidData(error) {
                failedBefore = true
                shown = Self.errorHeader(CLIError(error).description) + Self.withoutErrors(saved)
            } catch {
                messages.line("Your text is kept in \(file.path)")
                throw error
            }
        }
    }

    private static let errorMark = "# ERROR: "
    private static let fixLine = "# Fix the document below and save again; quit without saving to give up (your text is kept)."

    static func errorHeader(_ description: String) -> String {
        let lines = description.split(separator: ";").map { errorMark + $0.trimmingCharacters(in: .whitespaces) }
        return (lines + [fixLine, ""]).joined(separator: "\n") + "\n"
    }

    /// The text without the error header an earlier round put on top.
    static func withoutErrors(_ text: String) -> String {
        var lines = text.components(separatedBy: "\n")[...]
        while lines.first?.hasPrefix(errorMark) == true { lines.removeFirst() }
        if lines.first == fixLine {
            lines.removeFirst()
            if lines.first?.isEmpty == true { lines.removeFirst() }
        }
        return lines.joined(separator: "\n")
    }

    private static func isInvalidData(_ error: any Error) -> Bool {
        if case .invalid = CLIError(error) { return true }
        return false
    }

    private func write(_ text: String, to file: URL) throws {
        guard FileManager.default.createFile(atPath: file.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CLIError.failure("Cannot write \(file.path)")
        }
    }

    /// Runs the editor on the file through the shell (so `EDITOR="code --wait"` works), on this terminal.
    private func run(_ file: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "\(command) \"$1\"", "oak-editor", file.path]
        do {
            try process.run()
        } catch {
            throw CLIError.failure("Cannot start the editor '\(command)': \(error.localizedDescription); your text is kept in \(file.path)")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CLIError.failure("The editor '\(command)' failed (exit \(process.terminationStatus)); your text is kept in \(file.path)")
        }
    }
}
