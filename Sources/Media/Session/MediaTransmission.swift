/// Which of a stream's two local ports a datagram came in on or is to go out of. With rtcp-mux (RFC 5761)
/// everything uses ``rtp``.
public enum MediaPort: Hashable, Sendable {
    /// The RTP port (and the only one with rtcp-mux).
    case rtp
    /// The separate RTCP port (the RTP port + 1 by default, RFC 3550 §11).
    case rtcp
}

/// A datagram a ``MediaSession`` asks its driver to send.
public struct MediaTransmission<Address: Hashable & Sendable>: Hashable, Sendable {
    /// The datagram: SRTP/SRTCP-protected when the session is keyed.
    public var bytes: [UInt8]
    /// Where to send it.
    public var destination: Address
    /// Which local port to send it from (symmetric RTP, RFC 4961: the port the peer sends to).
    public var port: MediaPort

    /// - Parameters:
    ///   - bytes: the datagram.
    ///   - destination: where to send it.
    ///   - port: the local port to send it from.
    public init(bytes: [UInt8], destination: Address, port: MediaPort) {
        self.bytes = bytes
        self.destination = destination
        self.port = port
    }
}

/// What a ``MediaSession`` reports to the signalling side, taken with ``MediaSession/nextEvent()``.
public enum MediaSessionEvent<Address: Hashable & Sendable>: Hashable, Sendable {
    /// A digit received as RFC 4733 telephone-events, once per event.
    case dtmf(DTMFDigit)
    /// No RTP arrived for the configured media timeout while media was expected; reported again after each
    /// further timeout.
    case mediaTimeout
    /// Symmetric RTP (RFC 4961) latched: media now goes to this address.
    case latched(Address, port: MediaPort)
    /// The peer sent an RTCP BYE (RFC 3550 §6.6).
    case goodbye(reason: String?)
}

/// One 20 ms frame of audio a ``MediaSession`` hands out, for playout or recording.
public struct MediaAudioFrame: Hashable, Sendable {
    /// Where the samples came from.
    public enum Origin: Hashable, Sendable {
        /// Decoded from a received packet, or taken from the capture and sent.
        case media
        /// Synthesised by the decoder for a missing or late packet (PLC or FEC).
        case concealment
        /// Silence: nothing to play (before the first packet, a pause), or nothing captured, muted or a
        /// telephone-event interval on the sending side.
        case silence
    }

    /// Mono samples at ``format``.
    public var samples: [Int16]
    /// The codec's PCM format.
    public var format: AudioFormat
    /// Where they came from.
    public var origin: Origin
    /// The tick of the frame.
    public var instant: MediaInstant

    /// - Parameters:
    ///   - samples: mono samples at `format`.
    ///   - format: the codec's PCM format.
    ///   - origin: where they came from.
    ///   - instant: the tick of the frame.
    public init(samples: [Int16], format: AudioFormat, origin: Origin, instant: MediaInstant) {
        self.samples = samples
        self.format = format
        self.origin = origin
        self.instant = instant
    }
}
