/// The audio side of a ``MediaSession``'s driver: where each frame to send comes from, and where received
/// and sent frames go (a speaker, a callback, a WAV recorder). The session calls it from
/// ``MediaSession/advance(to:audio:)`` only, once per 20 ms tick, so the driver does the I/O.
public protocol MediaAudioPort {
    /// The next frame to send.
    /// - Parameters:
    ///   - count: mono samples wanted (160 for 20 ms of G.711, 960 for Opus).
    ///   - format: their format, the encoder's.
    /// - Returns: exactly `count` samples, or `nil` for silence (a frame of another length is silence too).
    mutating func capture(count: Int, format: AudioFormat) -> [Int16]?

    /// One frame of received audio, each tick while playout is on (silence fills the gaps, so a recording
    /// keeps the call's time).
    mutating func play(_ frame: MediaAudioFrame)

    /// The frame that went out this tick (for recording the sent side).
    mutating func didSend(_ frame: MediaAudioFrame)
}

extension MediaAudioPort {
    /// Silence, for a port that only listens.
    public mutating func capture(count: Int, format: AudioFormat) -> [Int16]? { nil }
    /// Discards the frame, for a port that only talks.
    public mutating func play(_ frame: MediaAudioFrame) {}
    /// Discards the frame, for a port that records nothing.
    public mutating func didSend(_ frame: MediaAudioFrame) {}
}

/// A port that sends silence and discards what it is given.
public struct SilentAudioPort: MediaAudioPort {
    /// A port with nothing behind it.
    public init() {}
}

/// A port over an ``AudioSource`` and an ``AudioSink`` in the codec's formats (``ConvertingSource`` and
/// ``ConvertingSink`` adapt others), with an optional sink for the sent audio.
public struct AudioDevicePort: MediaAudioPort {
    /// Where sent audio comes from; `nil` for silence.
    public var source: (any AudioSource)?
    /// Where received audio goes; `nil` to discard it.
    public var sink: (any AudioSink)?
    /// Where a copy of the sent audio goes (a recorder); `nil` for none.
    public var sentSink: (any AudioSink)?
    /// The first error from a source or sink; they are not called again after it.
    public private(set) var error: AudioIOError?

    /// - Parameters:
    ///   - source: the source of sent audio.
    ///   - sink: the sink of received audio.
    ///   - sentSink: a sink for a copy of the sent audio.
    public init(source: (any AudioSource)?, sink: (any AudioSink)?, sentSink: (any AudioSink)? = nil) {
        self.source = source
        self.sink = sink
        self.sentSink = sentSink
    }

    /// Reads the next frame from the source; silence once it ended or failed.
    public mutating func capture(count: Int, format: AudioFormat) -> [Int16]? {
        guard error == nil, var source else { return nil }
        defer { self.source = source }
        do throws(AudioIOError) {
            return try source.read(samplesPerChannel: count)
        } catch {
            self.error = error
            return nil
        }
    }

    /// Writes the frame to the sink.
    public mutating func play(_ frame: MediaAudioFrame) {
        guard error == nil, var sink else { return }
        error = AudioDevicePort.write(frame, to: &sink)
        self.sink = sink
    }

    /// Writes the frame to the sink of sent audio.
    public mutating func didSend(_ frame: MediaAudioFrame) {
        guard error == nil, var sentSink else { return }
        error = AudioDevicePort.write(frame, to: &sentSink)
        self.sentSink = sentSink
    }

    private static func write(_ frame: MediaAudioFrame, to sink: inout any AudioSink) -> AudioIOError? {
        do throws(AudioIOError) {
            try sink.write(frame.samples)
            return nil
        } catch {
            return error
        }
    }
}
