// expect: capture of 'request' with non-Sendable type 'SFSpeechAudioBufferRecognitionRequest'
// The microphone's tap runs on the audio thread: a request captured as it is crosses threads unchecked.
import AVFoundation
import Speech

func listen(_ engine: AVAudioEngine) {
    let request = SFSpeechAudioBufferRecognitionRequest()
    engine.inputNode.installTap(onBus: 0, bufferSize: 1024, format: nil) { buffer, _ in
        request.append(buffer)
    }
}
