import Media

/// A call's audio device, as its `MediaSession` sees it: the app's `CallAudio` made into a source in the
/// encoder's format and a sink in the decoder's, and the WAV recording that lasts the whole call.
///
/// An error of the source or the sink costs one frame (silence goes out, or the frame is not played); the
/// next frame tries again.
struct CallAudioPort: MediaAudioPort {
    /// What the app asked for.
    private(set) var audio: CallAudio
    private var source: (any AudioSource)?
    private var sink: (any AudioSink)?
    /// The formats the source and sink were made for: the encoder's and the decoder's.
    private var formats: (send: AudioFormat, receive: AudioFormat)?
    /// One writer per path for the whole call: a re-negotiation must not truncate the recording.
    private var recording: (path: String, writer: WAVFileWriter)?

    /// A port for `audio`, silent until ``adapt(send:receive:)`` gives it the codec's formats.
    init(_ audio: CallAudio) { self.audio = audio }

    /// Takes the app's new audio; once the formats are known, the source and sink are made again.
    mutating func replace(with audio: CallAudio) {
        self.audio = audio
        if let formats { make(send: formats.send, receive: formats.receive) }
    }

    /// Makes the source and sink for the codec's formats, unless they are made for them already.
    /// - Parameters:
    ///   - send: the encoder's format.
    ///   - receive: the decoder's format.
    mutating func adapt(send: AudioFormat, receive: AudioFormat) {
        guard formats?.send != send || formats?.receive != receive else { return }
        make(send: send, receive: receive)
    }

    /// Finishes the recording; the port is silent from then on.
    mutating func close() {
        try? recording?.writer.close()
        recording = nil
        source = nil
        sink = nil
        formats = nil
    }

    mutating func capture(count: Int, format: AudioFormat) -> [Int16]? {
        guard var source else { return nil }
        defer { self.source = source }
        return try? source.read(samplesPerChannel: count)
    }

    mutating func play(_ frame: MediaAudioFrame) {
        guard var sink else { return }
        try? sink.write(frame.samples)
        self.sink = sink
    }

    private mutating func make(send: AudioFormat, receive: AudioFormat) {
        formats = (send, receive)
        // The app's rate for files and callbacks, or the codec's own.
        let rate = audio.sampleRate.flatMap { [8000, 16000, 48000].contains($0) ? $0 : nil } ?? send.sampleRate
        let app = AudioFormat(sampleRate: rate)
        source = Self.source(audio.input, format: send, app: app)
        sink = makeSink(format: receive, app: app)
    }

    private static func source(_ input: CallAudio.Input, format: AudioFormat, app: AudioFormat) -> (any AudioSource)? {
        switch input {
        case .silence:
            return SilenceSource(format: format)
        case .tone(let frequency, let level):
            return ToneSource(frequency: frequency, level: level, format: format)
        case .file(let path, let loops):
            return try? WAVFileSource(path: path, format: format, isLooping: loops)
        case .samples(let produce):
            // The app's `nil` means silence for now, not the end of the source.
            let frames = CallbackSource(format: app) { count in produce(count) ?? [Int16](repeating: 0, count: count) }
            return ConvertingSource(frames, format: format)
        }
    }

    private mutating func makeSink(format: AudioFormat, app: AudioFormat) -> (any AudioSink)? {
        switch audio.output {
        case .discard:
            return nil
        case .file(let path):
            if recording?.path != path {
                try? recording?.writer.close()
                recording = (try? WAVFileWriter(path: path, format: app)).map { (path, $0) }
            }
            return recording.map { ConvertingSink($0.writer, format: format) }
        case .samples(let consume):
            return ConvertingSink(CallbackSink(format: app, consume: consume), format: format)
        }
    }
}
