/// One call's audio stream without I/O: datagrams and times go in; datagrams to send (with their
/// destinations), audio frames, events and the next deadline come out.
///
/// It does what a media stream does between its sockets and its audio device: RFC 7983 demultiplexing,
/// SRTP (RFC 3711), RTP statistics (RFC 3550 A.1), symmetric RTP latching (RFC 4961), the jitter buffer and
/// the decoder every 20 ms, the encoder and the RTP sender, RFC 4733 telephone-events both ways, RTCP
/// reports and the round-trip time (RFC 3550 §6, rtcp-mux or a separate port), and the media timeout. It
/// opens no socket, reads no clock and draws no randomness of its own: the driver
/// - passes each datagram to ``receive(_:from:on:at:)``;
/// - arms a timer for ``nextDeadline`` and calls ``advance(to:audio:)`` when it fires, with an
///   ``MediaAudioPort`` that supplies and takes the audio;
/// - after each call, sends every ``nextTransmission()`` and handles every ``nextEvent()``.
///
/// Generic over the driver's address type. Not `Sendable`, and not to be copied to fork a stream: the codec
/// and SRTP state are classes shared by copies; keep one value per stream, on one thread.
public struct MediaSession<Address: Hashable & Sendable> {
    @usableFromInline typealias State = MediaSessionState

    /// The configuration (its ``MediaSessionConfiguration/wallclockAtOrigin`` aside, when the session was
    /// given one of its own).
    @inlinable
    public var configuration: MediaSessionConfiguration { shared.value }
    @usableFromInline let shared: SharedMediaSessionConfiguration
    /// Handlers for STUN, DTLS and TURN ChannelData; none by default.
    public var seams: MediaDatagramSeams<Address> {
        get { seamStorage?.seams ?? MediaDatagramSeams() }
        set { seamStorage = SeamStorage(seams: newValue) }
    }
    /// The seams, out of line: a plain RTP stream has none, and three optional closures inline would cost
    /// every stream 48 bytes.
    var seamStorage: SeamStorage?

    final class SeamStorage {
        let seams: MediaDatagramSeams<Address>
        init(seams: MediaDatagramSeams<Address>) { self.seams = seams }
    }
    /// What the session does with media now (see ``setActivity(_:)``).
    public internal(set) var activity = MediaActivity.inactive
    /// True while silence goes out instead of the captured audio.
    public internal(set) var isMuted = false
    /// Whether symmetric RTP latching (RFC 4961) moves the destination to where the peer's packets come from,
    /// and refuses other sources (the default). Off when ICE (RFC 8445) negotiated the path: the selected pair
    /// decides where media goes, and packets from any address of the pair's checks are taken.
    public var isLatching = true
    /// The activity early media stands in for, to come back when it ends; `nil` while there is no early media
    /// (see ``setEarlyMedia(_:)``).
    var activityAfterEarlyMedia: MediaActivity?
    /// Our RTCP CNAME.
    public let cname: String

    // What the inlinable outputs and queries below read, so that they specialise in the driver's module (no
    // type metadata look-ups, no copies of the state through value witnesses).
    @usableFromInline var state = State.idle
    @usableFromInline var rtpLatch: SymmetricRTPLatch<Address>
    @usableFromInline var rtcpLatch: SymmetricRTPLatch<Address>
    @usableFromInline var counters = MediaSessionCounters()
    @usableFromInline var transmissions: BoundedQueue<MediaTransmission<Address>>
    @usableFromInline var events: BoundedQueue<MediaSessionEvent<Address>>
    @usableFromInline let clock: SessionClock
    @usableFromInline var random: SessionRandom
    /// The next 20 ms tick on the grid that starts at the session's creation.
    @usableFromInline var nextTick: MediaInstant
    @usableFromInline var watch = MediaTimeoutWatch()
    /// SRTP keys from the media path (DTLS-SRTP), kept across negotiations of the same association.
    var pathKeys: MediaPathKeys?

    /// The packet interval: the session encodes, sends, pulls and decodes one 20 ms frame per tick.
    public static var packetInterval: Duration { .nanoseconds(packetNanoseconds) }
    /// The packet interval in nanoseconds, for the tick arithmetic (`Duration`'s 128-bit arithmetic costs
    /// more than the rest of a tick's bookkeeping).
    static var packetNanoseconds: Int64 { 20_000_000 }

    /// A session with nothing negotiated yet.
    /// - Parameters:
    ///   - configuration: the configuration.
    ///   - now: the driver's monotonic time now: the first tick.
    ///   - random: the source of the SSRC, the first sequence number and timestamp (RFC 3550 §5.1), the
    ///     CNAME when none is configured, and the RTCP interval's randomisation.
    @inlinable
    public init(
        configuration: MediaSessionConfiguration = MediaSessionConfiguration(), at now: MediaInstant,
        random generator: inout some RandomNumberGenerator
    ) {
        self.init(
            sharing: SharedMediaSessionConfiguration(configuration), wallclockAtOrigin: configuration.wallclockAtOrigin,
            at: now, random: &generator)
    }

    /// A session with nothing negotiated yet, keeping a reference to a configuration that other sessions share.
    /// - Parameters:
    ///   - shared: the configuration.
    ///   - wallclockAtOrigin: this session's wall-clock time at ``MediaInstant/zero`` (RFC 3550 §6.4.1), in
    ///     place of the configuration's: the driver reads it when the stream opens.
    ///   - now: the driver's monotonic time now: the first tick.
    ///   - random: the source of the SSRC, the first sequence number and timestamp (RFC 3550 §5.1), the
    ///     CNAME when none is configured, and the RTCP interval's randomisation.
    @inlinable
    public init(
        sharing shared: SharedMediaSessionConfiguration, wallclockAtOrigin: NTPTimestamp, at now: MediaInstant,
        random generator: inout some RandomNumberGenerator
    ) {
        self.shared = shared
        random = SessionRandom(using: &generator)
        // A random identifier (RFC 7022 §4.2) of at most 13 characters: a string that short is stored inline,
        // where a longer one costs every stream an allocation.
        cname = shared.value.cname ?? base36(generator.next())
        clock = SessionClock(now: now, wallclockAtOrigin: wallclockAtOrigin)
        // Duration's nanoseconds take 128-bit arithmetic: once per configuration, for every latch.
        let relatch = shared.relatchNanoseconds
        rtpLatch = SymmetricRTPLatch(signalledAddress: nil, relatchNanoseconds: relatch)
        rtcpLatch = SymmetricRTPLatch(signalledAddress: nil, relatchNanoseconds: relatch)
        let capacity = shared.value.queueCapacity
        transmissions = BoundedQueue(capacity: capacity)
        events = BoundedQueue(capacity: capacity)
        nextTick = now
    }

    // MARK: Outputs

    /// The next datagram to send, oldest first; `nil` when there is none.
    @inlinable
    public mutating func nextTransmission() -> MediaTransmission<Address>? { transmissions.popFirst() }

    /// The next event, oldest first; `nil` when there is none.
    @inlinable
    public mutating func nextEvent() -> MediaSessionEvent<Address>? { events.popFirst() }

    /// When to call ``advance(to:audio:)`` next: the next 20 ms tick, or the media timeout or the RTCP
    /// report when one comes first; `nil` before a session is negotiated and after closing.
    @inlinable
    public var nextDeadline: MediaInstant? {
        state.deadline(nextTick: nextTick, mediaTimeout: shared.value.mediaTimeout, watch: watch)
    }

    /// True once ``close(at:)`` was called.
    @inlinable
    public var isClosed: Bool { state.isClosed }

    @inlinable
    mutating func send(_ bytes: [UInt8], to destination: Address, from port: MediaPort) {
        if !transmissions.append(MediaTransmission(bytes: bytes, destination: destination, port: port)) {
            counters.queueOverflows &+= 1
        }
    }

    mutating func report(_ event: MediaSessionEvent<Address>) {
        if !events.append(event) { counters.queueOverflows &+= 1 }
    }

    /// Takes the negotiated stream out of the state, so that its buffers are not copied on write while it
    /// changes; put it back with ``restore(_:)``.
    mutating func takeStream() -> NegotiatedStream? {
        // Moved out rather than copied: a copy would retain every reference in the stream, and the
        // unspecialised code copies through the enum's value witnesses.
        var taken = State.idle
        swap(&taken, &state)
        switch consume taken {
        case .streaming(let stream):
            return stream
        case let other:
            state = other
            return nil
        }
    }

    /// Puts back a stream taken with ``takeStream()``.
    mutating func restore(_ stream: NegotiatedStream) { state = .streaming(stream) }
}

/// `value` in lowercase base 36, as `String(value, radix: 36)` writes it, without that initialiser's generic
/// code (unspecialised in the standard library): at most 13 characters, a string stored inline.
@usableFromInline
func base36(_ value: UInt64) -> String {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 13) { digits in
        var rest = value
        var start = digits.count
        repeat {
            let digit = UInt8(truncatingIfNeeded: rest % 36)
            start -= 1
            digits[start] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
            rest /= 36
        } while rest > 0 && start > 0
        return String(decoding: UnsafeBufferPointer(rebasing: digits[start...]), as: UTF8.self)
    }
}

/// Where a ``MediaSession`` stands. Outside the generic session, since none of it depends on the address
/// type: its layout is then known where it is used, and reading or changing it needs no type metadata and
/// no value witnesses (the session's code is not specialised in the modules that drive it).
@usableFromInline
enum MediaSessionState {
    /// Not negotiated yet, or the last negotiation failed: only the seams work.
    case idle
    case streaming(NegotiatedStream)
    /// Closed, with the final figures: out of line, since every session is held in its larger streaming
    /// layout until then (about 80 bytes per call).
    indirect case closed(MediaSessionStatistics)

    // The session's reads of its state: code of a concrete type, which works on the negotiated stream
    // without the type metadata and value witnesses that the session's unspecialised code goes through.

    @inlinable
    var isClosed: Bool {
        if case .closed = self { return true }
        return false
    }

    /// When the session must run next: the next tick, or the RTCP report or the media timeout when one comes
    /// first; `nil` unless streaming.
    @usableFromInline
    func deadline(nextTick: MediaInstant, mediaTimeout: Duration?, watch: MediaTimeoutWatch) -> MediaInstant? {
        guard case .streaming(let stream) = self else { return nil }
        var deadline = min(nextTick, stream.rtcp.nextReportTime)
        if let timeout = mediaTimeout, let expiry = watch.deadline(after: timeout) {
            deadline = min(deadline, expiry)
        }
        return deadline
    }

    /// The figures so far, with `counters` (after closing, the final ones).
    @usableFromInline
    func statistics(_ counters: MediaSessionCounters) -> MediaSessionStatistics {
        switch self {
        case .idle: counters.figures
        case .streaming(let stream): counters.figures(with: stream)
        case .closed(let final): final
        }
    }

    @usableFromInline
    var sendFormat: AudioFormat? {
        guard case .streaming(let stream) = self else { return nil }
        return stream.encoder.format
    }

    @usableFromInline
    var receiveFormat: AudioFormat? {
        guard case .streaming(let stream) = self else { return nil }
        return stream.decoder.format
    }
}
