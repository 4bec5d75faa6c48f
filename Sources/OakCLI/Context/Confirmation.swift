import Foundation

/// Whether a destructive command may go ahead: `--force`, or a "y" typed at a terminal. Without a terminal
/// and without `--force`, it refuses (a script never deletes by accident).
public struct Confirmation: Sendable {
    public var force: Bool
    public var prompt: OutputStream
    /// Reads the answer; nil when standard input is not a terminal.
    public var answer: @Sendable () -> String?

    public init(force: Bool, prompt: OutputStream = .standardError, answer: @escaping @Sendable () -> String? = Confirmation.terminalAnswer) {
        self.force = force
        self.prompt = prompt
        self.answer = answer
    }

    public static let terminalAnswer: @Sendable () -> String? = {
        isatty(STDIN_FILENO) == 1 ? readLine() : nil
    }

    func require(_ question: String) throws {
        guard !force else { return }
        prompt.write("\(question) [y/N] ")
        guard let reply = answer() else {
            prompt.line()
            throw CLIError.usage("Not a terminal: add --force to delete without asking")
        }
        guard ["y", "yes"].contains(reply.trimmingCharacters(in: .whitespaces).lowercased()) else {
            throw CLIError.failure("Nothing deleted.")
        }
    }
}
