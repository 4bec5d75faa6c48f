import Foundation

/// What is written to a pipe, read to its end on a thread of its own: a writer never waits for a reader, however
/// much it writes (a pipe holds 64 KiB).
public final class PipeText: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)
    /// Written once by the reading thread before `finished` is signalled; read only after waiting for it.
    private var data = Data()

    public init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            finished.signal()
        }
    }

    /// The text, once every writing end is closed.
    public func wait() -> String {
        finished.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
