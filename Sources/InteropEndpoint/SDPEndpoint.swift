import DTLS
import ICE
import Media
import SDP
import STUN

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `sb-endpoint sdp`: one audio stream set up by an offer and an answer exchanged through files, then run
/// for a fixed time (issue 16, item 5), so that an independent stack (aiortc) can be tested without SIP.
///
/// A single-threaded driver of the sans-I/O parts: `OfferAnswer` for the SDP, `ICEAgent` for connectivity,
/// `DTLSEngine` for the keys, `SRTPContext` for protection and `MediaSession` for RTP, RTCP, the codec and
/// the jitter buffer, all over one UDP socket read with `poll` (RFC 7983 demultiplexing by first byte). The
/// DTLS keys go to the media session (`setPathKeys`), which protects and unprotects.
final class SDPEndpoint {
    let options: SDPOptions
    let socket: UDPPort
    var random = MediaRandomNumberGenerator()
    var session: MediaSession<STUNTransportAddress>
    var audio = AudioDevicePort(source: nil, sink: nil)
    var recorder: WAVFileWriter?
    /// The WebRTC side (`--webrtc`): ICE and DTLS.
    var credentials: ICECredentials?
    var remoteICE: RemoteICE?
    var identity: DTLSIdentity?
    var ice: ICEAgent<MediaRandomNumberGenerator>?
    var iceDeadline: STUNInstant?
    var dtls: DTLSEngine?
    var suiteName = "none"
    /// Where media goes: ICE's selected remote, or the SDP's address without ICE.
    var remote: STUNTransportAddress?
    /// Where the latest DTLS datagram came from, for answers before ICE selected a pair.
    var dtlsPeer: STUNTransportAddress?
    var negotiated: NegotiatedSession?
    /// When the setup must be done by, and when the media ends once it runs.
    var setupDeadline: Int64 = 0
    var mediaEnd: Int64?
    var failure: String?

    init(options: SDPOptions) throws(UDPPort.Failure) {
        self.options = options
        socket = try UDPPort(address: options.address, port: options.port)
        session = MediaSession(
            configuration: MediaSessionConfiguration(mediaTimeout: nil), at: SDPEndpoint.now(), random: &random)
    }

    /// The monotonic clock, as the media and DTLS layers count it.
    static func now() -> MediaInstant { MediaInstant(nanoseconds: monotonicNanoseconds()) }

    static func monotonicNanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    /// Runs the exchange and the media; the exit status (0: the media ran and audio came in).
    func run() -> Int32 {
        setupDeadline = Self.monotonicNanoseconds() + Int64(options.timeout * 1e9)
        do throws(SDPEndpointFailure) {
            try negotiate()
            try startTransport()
            while try step() {}
        } catch {
            failure = error.reason
        }
        return finish()
    }

    /// One turn of the loop: waits for a datagram or the next deadline, then does what is due. `false` once
    /// the media has run its time.
    func step() throws(SDPEndpointFailure) -> Bool {
        let now = Self.monotonicNanoseconds()
        if let mediaEnd, now >= mediaEnd { return false }
        if mediaEnd == nil, now >= setupDeadline {
            throw SDPEndpointFailure(reason: dtls == nil ? "timeout" : "setup timeout (ICE or DTLS)")
        }
        let wait = (nextDeadline(now: now) - now) / 1_000_000
        if let (bytes, source) = socket.receive(waiting: Int32(clamping: max(wait, 0))) {
            try receive(bytes, from: source)
        }
        try advance()
        return true
    }

    /// The earliest of the media, ICE, DTLS, setup and end deadlines.
    func nextDeadline(now: Int64) -> Int64 {
        var deadline = mediaEnd ?? setupDeadline
        if let next = session.nextDeadline { deadline = min(deadline, next.nanoseconds) }
        if let next = iceDeadline { deadline = min(deadline, next.nanoseconds) }
        if let next = dtls?.nextDeadline { deadline = min(deadline, next.nanoseconds) }
        return max(deadline, now)
    }

    /// Demultiplexes one datagram by its first byte (RFC 7983): STUN to ICE, DTLS to the engine, RTP and
    /// RTCP (unprotected first with DTLS keys) to the media session.
    func receive(_ bytes: [UInt8], from source: STUNTransportAddress) throws(SDPEndpointFailure) {
        guard let first = bytes.first else { return }
        let now = Self.now()
        switch first {
        case 0...3:
            guard var agent = ice else { return }
            let actions = agent.receive(
                bytes, on: socket.local, from: source, at: STUNInstant(nanoseconds: now.nanoseconds))
            ice = agent
            try perform(actions)
        case 20...63:
            guard let dtls else { return }
            dtlsPeer = source
            let actions: [DTLSAction]
            do throws(DTLSError) { actions = try dtls.receive(bytes, at: now) } catch {
                return  // a stray or malformed record is dropped; a failure comes as an action
            }
            try perform(actions)
        case 128...191:
            session.receive(bytes, from: source, on: .rtp, at: now)
            flush()
        default: return
        }
    }

    /// Runs what is due on every timer.
    func advance() throws(SDPEndpointFailure) {
        let now = Self.now()
        if let deadline = iceDeadline, deadline.nanoseconds <= now.nanoseconds, var agent = ice {
            iceDeadline = nil
            let actions = agent.advance(to: STUNInstant(nanoseconds: now.nanoseconds))
            ice = agent
            try perform(actions)
        }
        if let dtls, let deadline = dtls.nextDeadline, deadline <= now {
            try perform(dtls.advance(to: now))
        }
        if let deadline = session.nextDeadline, deadline <= now {
            session.advance(to: now, audio: &audio)
            flush()
        }
    }

    /// Sends what the media session queued (protected with the DTLS keys when there are some).
    func flush() {
        while let transmission = session.nextTransmission() {
            socket.send(transmission.bytes, to: transmission.destination)
        }
        while session.nextEvent() != nil {}
    }

    /// Ends the media and prints the outcome; the exit status.
    func finish() -> Int32 {
        let now = Self.now()
        if let dtls {
            for action in dtls.close() {
                if case .send(let bytes) = action, let peer = remote ?? dtlsPeer { socket.send(bytes, to: peer) }
            }
        }
        session.close(at: now, reason: "done")
        flush()
        try? recorder?.close()
        let figures = session.statistics
        let counts =
            "tx-packets=\(figures.packetsSent) rx-packets=\(figures.packetsReceived) srtp-failures=\(figures.srtpFailures)"
        if failure == nil, figures.packetsReceived == 0 { failure = "no media received" }
        if let failure {
            emit("failed reason=\"\(failure)\" \(counts)")
            return 1
        }
        emit("ended reason=duration \(counts)")
        return 0
    }
}

/// Why the run ends early: the text of the `failed reason="..."` line.
struct SDPEndpointFailure: Error {
    var reason: String
}
