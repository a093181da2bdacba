import Media

/// A call's audio device, as its `MediaSession` sees it: the app's `CallAudio` made into a source in the
/// encoder's format and a sink in the decoder's, and the WAV recording that lasts the whole call.
///
/// An error of the source or the sink costs one frame (silence goes out, or the frame is not played); the
/// next frame tries again.
struct CallAudioPort: MediaAudioPort {
    /// What the app asked for.
    var audio: CallAudio { devices?.audio ?? CallAudio() }
    /// The source, sink and recording, out of line: `nil` while the app's audio is the default (silence out,
    /// nothing kept), which needs none of them. Made with the first other audio, then kept for the call.
    private var devices: Devices?
    /// The formats the source and sink were made for: the encoder's and the decoder's.
    private var formats: (send: AudioFormat, receive: AudioFormat)?

    /// A port's source, sink and recording. One per port: a port is not copied to fork a stream. Confined to
    /// the stream's loop, with accesses that never overlap: no run-time exclusivity checks.
    final class Devices {
        @exclusivity(unchecked) var audio: CallAudio
        @exclusivity(unchecked) var source: (any AudioSource)?
        @exclusivity(unchecked) var sink: (any AudioSink)?
        /// One writer per path for the whole call: a re-negotiation must not truncate the recording.
        @exclusivity(unchecked) var recording: (path: String, writer: WAVFileWriter)?

        init(_ audio: CallAudio) { self.audio = audio }
    }

    /// A port for `audio`, silent until ``adapt(send:receive:)`` gives it the codec's formats.
    init(_ audio: CallAudio) {
        if !Self.isDefault(audio) { devices = Devices(audio) }
    }

    /// Silence out and nothing kept: what a port without devices does.
    static func isDefault(_ audio: CallAudio) -> Bool {
        guard case .silence = audio.input, case .discard = audio.output else { return false }
        return true
    }

    /// Takes the app's new audio; once the formats are known, the source and sink are made again.
    mutating func replace(with audio: CallAudio) {
        guard let devices else {
            if !Self.isDefault(audio) {
                devices = Devices(audio)
                if let formats { make(send: formats.send, receive: formats.receive) }
            }
            return
        }
        devices.audio = audio
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
        if let devices {
            try? devices.recording?.writer.close()
            devices.recording = nil
            devices.source = nil
            devices.sink = nil
        }
        formats = nil
    }

    mutating func capture(count: Int, format: AudioFormat) -> [Int16]? {
        guard let devices else {
            // The default audio: silence, once the codec is known.
            guard formats != nil else { return nil }
            return SilenceSource(format: format).read(samplesPerChannel: count)
        }
        guard var source = devices.source else { return nil }
        defer { devices.source = source }
        return try? source.read(samplesPerChannel: count)
    }

    mutating func play(_ frame: MediaAudioFrame) {
        guard let devices, var sink = devices.sink else { return }
        try? sink.write(frame.samples)
        devices.sink = sink
    }

    private mutating func make(send: AudioFormat, receive: AudioFormat) {
        formats = (send, receive)
        guard let devices else { return }
        let audio = devices.audio
        // The app's rate for files and callbacks, or the codec's own.
        let rate = audio.sampleRate.flatMap { [8000, 16000, 48000].contains($0) ? $0 : nil } ?? send.sampleRate
        let app = AudioFormat(sampleRate: rate)
        devices.source = Self.source(audio.input, format: send, app: app)
        devices.sink = Self.makeSink(audio.output, format: receive, app: app, devices: devices)
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

    private static func makeSink(_ output: CallAudio.Output, format: AudioFormat, app: AudioFormat, devices: Devices)
        -> (any AudioSink)?
    {
        switch output {
        case .discard:
            return nil
        case .file(let path):
            if devices.recording?.path != path {
                try? devices.recording?.writer.close()
                devices.recording = (try? WAVFileWriter(path: path, format: app)).map { (path, $0) }
            }
            return devices.recording.map { ConvertingSink($0.writer, format: format) }
        case .samples(let consume):
            return ConvertingSink(CallbackSink(format: app, consume: consume), format: format)
        }
    }
}
