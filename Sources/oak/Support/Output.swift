import OakCLI

/// Writes a line to standard output at once (unbuffered), so logs and pipes see it immediately.
func say(_ line: String) {
    OutputStream.standardOutput.line(line)
}
