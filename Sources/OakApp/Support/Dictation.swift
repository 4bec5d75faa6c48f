import Foundation

/// Speech to text for the note editor. The iOS implementation (in OakAppUI) uses the Speech framework;
/// tests use a scripted one.
public protocol Dictation: Sendable {
    /// Asks for speech and microphone permission; false when refused.
    func requestAuthorization() async -> Bool
    /// Starts listening. Each value is the whole transcript so far; the stream ends when `stop()` is
    /// called or the recognizer finishes, and throws if it fails.
    func transcripts() -> AsyncThrowingStream<String, any Error>
    /// Stops listening; the stream ends after its final transcript.
    func stop() async
}

/// Dictation where the platform has none: permission is always refused.
public struct UnavailableDictation: Dictation {
    public init() {}

    public func requestAuthorization() async -> Bool { false }

    public func transcripts() -> AsyncThrowingStream<String, any Error> {
        AsyncThrowingStream { $0.finish() }
    }

    public func stop() async {}
}
