import Media
import SDP
import SIPTransport
import Synchronization

/// What a media stream reports back to the signalling side.
enum MediaStreamEvent: Sendable {
    /// A digit received as RFC 4733 telephone-events (once per event).
    case dtmf(Character)
    /// No packet arrived for the configured media timeout.
    case timedOut
    /// The DTLS-SRTP keys are in force, for this suite (RFC 5764 §4.2).
    case secured(CryptoSuite)
    /// The DTLS-SRTP handshake failed: no keys, no media.
    case securityFailed(MediaSecurityFailure)
}

/// Where a media stream's events go: one closure for all of them, since every stream keeps it for the
/// whole call (one closure context instead of one per kind).
struct MediaStreamEvents: Sendable {
    private let report: @Sendable (MediaStreamEvent) -> Void

    /// Events go to `report` (on the media loop); none go anywhere by default.
    init(_ report: @escaping @Sendable (MediaStreamEvent) -> Void = { _ in }) { self.report = report }

    func dtmf(_ digit: Character) { report(.dtmf(digit)) }
    func timedOut() { report(.timedOut) }
    func secured(_ suite: CryptoSuite) { report(.secured(suite)) }
    func securityFailed(_ failure: MediaSecurityFailure) { report(.securityFailed(failure)) }
}

/// One call's media on its sockets: a thin driver of an I/O-free `MediaSession`, which holds the codec,
/// SRTP, jitter buffer, RTCP, DTMF, latching, media timeout and statistics. Datagrams from the RTP and RTCP
/// sockets go into the session, a loop timer advances it at its deadlines, and what it hands out goes on:
/// datagrams to the sockets, audio frames to the call's `CallAudioPort`, digits and the media timeout to the
/// signalling side (`MediaStream+Driving.swift`).
///
/// Confined to the media loop: every method except `figures` and `port` runs on it.
final class MediaStream: @unchecked Sendable {
    // @unchecked Sendable: all mutable state is touched only on `loop` (the engine posts every call there);
    // the figures other threads read are behind a Mutex. That state is read and written without run-time
    // exclusivity checks (`@exclusivity(unchecked)`): one thread, and no access to it overlaps another (the
    // session's seams only queue datagrams for after `receive`); the checks cost a call about 3,000
    // instructions.

    /// The engine's loop, clock and DTLS settings.
    let context: MediaStreamContext
    var loop: any EventLoopProtocol { context.loop }
    var clock: any MediaClock { context.clock }
    /// The provider's DTLS-SRTP identity and timers, when calls may use DTLS (`MediaStream+DTLS.swift`).
    var dtlsSettings: DTLSCallSettings? { context.dtls }
    /// The RTP and RTCP sockets, which route what arrives to this stream while it holds them.
    let pair: MediaPair
    var rtp: DatagramSocket { pair.rtp }
    var rtcpSocket: DatagramSocket { pair.rtcp }
    /// The address the sockets are bound on: the engine pools them by it when the stream closes.
    let host: String
    let events: MediaStreamEvents
    /// Everything between the sockets and the audio.
    @exclusivity(unchecked) var session: MediaSession<SocketAddress>
    /// The app's audio: source, sink and recording.
    @exclusivity(unchecked) var audio: CallAudioPort
    /// The loop timer armed for the session's deadline, and that deadline.
    @exclusivity(unchecked) var timer: (handle: TimerHandle, deadline: MediaInstant)?
    /// The session's figures as of its latest tick, for other threads.
    let published = Mutex(MediaStreamFigures())
    /// ICE, when the call uses it (`MediaStream+ICE.swift`): the selected pair carries the media.
    @exclusivity(unchecked) var ice: ICEDriver?
    /// The DTLS-SRTP association in force, if any.
    @exclusivity(unchecked) var dtls: DTLSAssociation?
    /// DTLS datagrams the demultiplexer handed over during `session.receive`, for `drainDTLS`.
    @exclusivity(unchecked) var pendingDTLS: [(bytes: [UInt8], source: SocketAddress)] = []
    /// ClientHellos that came while the association in force was keyed: a new association's, held until the
    /// negotiation that names it (at most four).
    @exclusivity(unchecked) var heldClientHellos: [(bytes: [UInt8], source: SocketAddress)] = []

    /// The local RTP port.
    var port: UInt16 { rtp.localAddress.port }

    init(
        context: MediaStreamContext, random: EngineRandom, pair: MediaPair, host: String, audio: CallAudio,
        configuration: SharedMediaSessionConfiguration, events: MediaStreamEvents
    ) {
        self.host = host
        self.context = context
        self.pair = pair
        self.audio = CallAudioPort(audio)
        self.events = events
        // SSRC, first sequence number and timestamp: from the shared getrandom buffer (a system call each
        // otherwise).
        var generator = random.generator
        session = MediaSession(
            sharing: configuration, wallclockAtOrigin: context.clock.wallclockAtOrigin(), at: context.clock.now(),
            random: &generator)
        // Until the app's audio is active, silence goes out (it keeps NAT bindings and the peer's latch).
        session.setAudioActive(false)
    }

    /// Reads the session in place. A plain read of this class's stored struct would copy it first, since the
    /// getters are generic code of another module and not inlined: over 1 KB and a retain of each reference
    /// in it, a few times per 20 ms tick.
    func reading<T>(_ read: (inout MediaSession<SocketAddress>) -> T) -> T { read(&session) }

    /// The figures so far (any thread).
    var figures: MediaStreamFigures { published.withLock { $0 } }

    // MARK: Control (media loop)

    /// Starts receiving. Until `configure` there is nothing to send or play, and no timer.
    func open() {
        do throws(TransportError) { try pair.carry(self, on: loop) } catch { return }
        // An offer of ours may be answered with a ClientHello before the answer itself (RFC 5763 §5).
        if dtlsSettings != nil { installDTLSSeam() }
    }

    /// Applies a negotiated session (the first answer, an early one, or a re-offer's); the session decides
    /// what it keeps. A session it cannot take (codec, keys) leaves the stream silent until the next one.
    func configure(_ negotiated: NegotiatedSession) {
        let signalledRTP = negotiated.remoteRTPAddress.flatMap { context.peerAddress(host: $0.host, port: $0.port) }
        var rtpAddress = signalledRTP
        // With ICE the selected pair says where media goes: a new default candidate in a re-offer (an
        // RFC 5245 agent's update after ICE) must not rebuild the stream; no address (hold) still stops it.
        if ice != nil, rtpAddress != nil, let current = reading({ $0.rtpDestination }) { rtpAddress = current }
        // The RTCP address is most often the RTP one's host (a=rtcp with a port only, or the port + 1): that
        // host is parsed once.
        let rtcpAddress = negotiated.remoteRTCPAddress.flatMap { rtcp in
            if let signalledRTP, negotiated.remoteRTPAddress?.host == rtcp.host {
                return signalledRTP.with(port: rtcp.port)
            }
            return context.peerAddress(host: rtcp.host, port: rtcp.port)
        }
        negotiateDTLS(negotiated.dtls)
        do throws(MediaSessionError) {
            try session.configure(negotiated, rtpAddress: rtpAddress, rtcpAddress: rtcpAddress, at: clock.now())
        } catch {
            return
        }
        startDTLSIfReady()
        let formats = reading { session in (send: session.sendFormat, receive: session.receiveFormat) }
        if let send = formats.send, let receive = formats.receive {
            audio.adapt(send: send, receive: receive)
        }
        publish()
        arm()
    }

    /// Replaces the audio (before or during the call).
    func setAudio(_ audio: CallAudio) {
        guard !reading({ $0.isClosed }) else { return }
        self.audio.replace(with: audio)
    }

    /// Takes incoming media from now on, ahead of the answer (RFC 3264 §5.1: a resume's re-offer).
    func prepareToReceive() {
        session.prepareToReceive(at: clock.now())
        arm()
    }

    /// Audio activation: until then the stream sends silence and plays nothing.
    func setActive(_ active: Bool) { session.setAudioActive(active) }

    /// Early media: what arrives is played and recorded, and nothing is sent, not even silence, until
    /// `setEarlyMedia(false)`.
    func setEarlyMedia(_ early: Bool) { session.setEarlyMedia(early) }

    /// Mute: silence goes out instead of the source (the source is not read, so a file pauses).
    func setMuted(_ muted: Bool) { session.setMuted(muted) }

    /// Queues digits as RFC 4733 events. Returns false when the peer did not negotiate telephone-event.
    func sendDigits(_ digits: [DTMFDigit]) -> Bool { session.sendDigits(digits) }

    /// Sends an RTCP BYE, stops, and gives back the sockets; the recording is finished.
    func close() {
        guard !reading({ $0.isClosed }) else { return }
        if let timer { loop.cancelTimer(timer.handle) }
        timer = nil
        endDTLS()
        session.close(at: clock.now())
        flush()
        ice?.close()
        audio.close()
        context.release(pair, host)
        publish()
    }
}
