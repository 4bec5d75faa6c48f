#if canImport(SwiftUI) && canImport(UIKit)
import AVFoundation
import OakApp
import Speech

/// Dictation with the Speech framework: the microphone through AVAudioEngine, partial results as they come.
public final class SpeechDictation: Dictation, @unchecked Sendable {
    private let lock = NSLock()
    private var audioEngine: AVAudioEngine?
    private var request: SFSpeechAudioBufferRecognitionRequest?
    private var task: SFSpeechRecognitionTask?

    public init() {}

    public func requestAuthorization() async -> Bool {
        let speech = await withCheckedContinuation { continuation in
            SFSpeechRecognizer.requestAuthorization { continuation.resume(returning: $0 == .authorized) }
        }
        guard speech else { return false }
        return await AVAudioApplication.requestRecordPermission()
    }

    public func transcripts() -> AsyncThrowingStream<String, any Error> {
        AsyncThrowingStream { continuation in
            do {
                try start(continuation)
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }

    public func stop() async {
        let (engine, request) = lock.withLock { (audioEngine, self.request) }
        engine?.stop()
        engine?.inputNode.removeTap(onBus: 0)
        request?.endAudio()
    }

    private func start(_ continuation: AsyncThrowingStream<String, any Error>.Continuation) throws {
        guard let recognizer = SFSpeechRecognizer(), recognizer.isAvailable else {
            throw DictationError.unavailable
        }
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.record, mode: .measurement, options: .duckOthers)
        try session.setActive(true, options: .notifyOthersOnDeactivation)
        let engine = AVAudioEngine()
        let request = SFSpeechAudioBufferRecognitionRequest()
        request.shouldReportPartialResults = true
        // In the field there is often no network: recognise on the device whenever the language allows it.
        if recognizer.supportsOnDeviceRecognition { request.requiresOnDeviceRecognition = true }
        let feed = AudioFeed(request)
        let input = engine.inputNode
        input.installTap(onBus: 0, bufferSize: 1024, format: input.outputFormat(forBus: 0)) { buffer, _ in
            feed.append(buffer)
        }
        engine.prepare()
        try engine.start()
        let task = recognizer.recognitionTask(with: request) { [weak self] result, error in
            if let result {
                continuation.yield(result.bestTranscription.formattedString)
                if result.isFinal { self?.finish(continuation, error: nil) }
            } else if let error {
                self?.finish(continuation, error: Self.dictationError(error))
            }
        }
        lock.withLock {
            audioEngine = engine
            self.request = request
            self.task = task
        }
        continuation.onTermination = { [weak self] _ in
            Task { await self?.stop() }
        }
    }

    /// The Speech framework's errors that have a plain explanation (`DictationError`); others as they are.
    private static func dictationError(_ error: any Error) -> any Error {
        let error = error as NSError
        // kAFAssistantErrorDomain 1110: the recognizer heard no speech.
        if error.domain == "kAFAssistantErrorDomain", error.code == 1110 { return DictationError.nothingHeard }
        return error
    }

    private func finish(_ continuation: AsyncThrowingStream<String, any Error>.Continuation, error: (any Error)?) {
        let engine = lock.withLock { () -> AVAudioEngine? in
            defer {
                audioEngine = nil
                request = nil
                task = nil
            }
            return audioEngine
        }
        engine?.stop()
        engine?.inputNode.removeTap(onBus: 0)
        try? AVAudioSession.sharedInstance().setActive(false, options: .notifyOthersOnDeactivation)
        if let error { continuation.finish(throwing: error) } else { continuation.finish() }
    }
}

/// Hands the microphone's buffers to the recognition request on the audio engine's own thread, where the tap
/// runs: feeding buffers as they arrive is what `append(_:)` is for. The request is not `Sendable` only because it
/// is an Objective-C class; after the tap is installed nothing else touches it but `endAudio()` at the end.
private final class AudioFeed: @unchecked Sendable {
    private let request: SFSpeechAudioBufferRecognitionRequest

    init(_ request: SFSpeechAudioBufferRecognitionRequest) {
        self.request = request
    }

    func append(_ buffer: AVAudioPCMBuffer) {
        request.append(buffer)
    }
}

#endif
