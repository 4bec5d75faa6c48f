import Foundation

/// Writes a line to standard output at once (unbuffered), so logs and pipes see it immediately.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
