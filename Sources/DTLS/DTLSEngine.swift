import COpenSSL
public import Media
public import SDP

/// A DTLS 1.2 client or server for DTLS-SRTP (RFC 5763, RFC 5764), sans-I/O: datagrams and instants in,
/// datagrams to send, keys and failures out, over OpenSSL with two memory BIOs.
///
/// The driver calls ``start(at:)`` once, hands every DTLS datagram (first byte 20...63, RFC 7983) to
/// ``receive(_:at:)``, and calls ``advance(to:)`` when ``nextDeadline`` comes. The engine never reads a clock
/// of its own for its decisions: the handshake deadline and the retransmission deadlines are instants it
/// computes from the ones it is given, with the durations it hands OpenSSL through `DTLS_set_timer_cb`.
///
/// What stays wall-clock, inside OpenSSL 3.0 (its `d1_lib.c`):
/// - OpenSSL stamps its retransmission timer with `gettimeofday` when it sends a flight (expiry = that time
///   plus the duration our callback returned), and `DTLSv1_handle_timeout` retransmits only when that
///   wall-clock expiry is less than 15 ms away. So the engine decides *when to ask* and *how long each timeout
///   is*; OpenSSL's wall clock decides whether an ask is late enough. With a driver whose clock runs at the
///   wall clock's rate (the media loop's monotonic clock) the two agree; when OpenSSL declines an early ask
///   (virtual time ahead of the wall clock, or a step of the system clock), the engine re-arms its deadline
///   for the wall-clock time OpenSSL says is left (`DTLSv1_get_timeout`).
/// - Every `SSL_do_handshake`/`SSL_read` checks the same wall-clock timer first, so a datagram that arrives
///   after OpenSSL's expiry but before the driver's `advance(to:)` retransmits the flight then; the engine
///   then reports the next deadline from the doubled duration.
/// - After 12 retransmissions of one flight OpenSSL gives up on its own; the handshake deadline (15 s by
///   default) normally comes first. Both end in ``DTLSError/Code/handshakeTimeout``.
/// - OpenSSL's randomness (client/server randoms, ECDHE keys) is its own; certificate validity dates are not
///   checked at all (the fingerprint decides).
///
/// Keys are handed out (``DTLSAction/connected(_:)``) only once the peer's certificate matched a fingerprint
/// from its SDP; with no fingerprint yet the handshake runs and the keys wait for
/// ``setRemoteFingerprints(_:at:)``. Not `Sendable`: one engine stays on its media loop.
public final class DTLSEngine {
    /// Where an association stands.
    public enum State: Hashable, Sendable {
        /// Created; ``start(at:)`` not called yet.
        case idle
        /// The handshake is under way.
        case handshaking
        /// The handshake completed; the peer's fingerprint is not known yet, so no keys are out.
        case awaitingFingerprint
        /// Keys are out; the association is up.
        case connected
        /// Failed for good.
        case failed(DTLSError)
        /// Closed by either side.
        case closed
    }

    /// The configuration it runs with.
    public let configuration: Configuration
    /// Where it stands.
    public internal(set) var state: State = .idle
    /// The SRTP keys, once connected.
    public internal(set) var keys: DTLSSRTPKeys?
    /// Our certificate's `sha-256` fingerprint, for our SDP's `a=fingerprint`.
    public var localFingerprint: Fingerprint { configuration.identity.fingerprint }

    /// `SSL *`; owns the two BIOs.
    let ssl: OpaquePointer
    /// Network -> OpenSSL.
    let input: OpaquePointer
    /// OpenSSL -> network.
    let output: OpaquePointer
    let callbacks: DTLSCallbackState
    /// When the handshake (and the wait for the fingerprint) must be over.
    var handshakeDeadline: MediaInstant?
    /// When to ask OpenSSL to retransmit its last flight.
    var retransmissionDeadline: MediaInstant?
    /// Keys exported while the peer's fingerprint is still unknown.
    var pendingKeys: DTLSSRTPKeys?

    /// Creates an engine; nothing is sent until ``start(at:)``.
    /// - Parameter configuration: role, identity, fingerprints, profiles and timers.
    /// - Throws: ``DTLSError`` with `.libraryFailure` when OpenSSL cannot make the connection, or
    ///   `.noCommonSRTPProfile` for an empty profile list.
    public init(configuration: Configuration) throws(DTLSError) {
        guard !configuration.srtpProfiles.isEmpty else {
            throw DTLSError(.noCommonSRTPProfile, "no SRTP protection profile configured")
        }
        let profiles = configuration.srtpProfiles.map(\.name).joined(separator: ":")
        guard let ssl = SSL_new(configuration.identity.context) else {
            ERR_clear_error()
            throw DTLSError(.libraryFailure, "SSL_new failed")
        }
        guard let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            ERR_clear_error()
            throw DTLSError(.libraryFailure, "BIO_new failed")
        }
        SSL_set_bio(ssl, input, output)
        _ = sb_BIO_set_mem_eof_return(input, -1)
        _ = SSL_set_options(ssl, sb_SSL_OP_NO_QUERY_MTU)
        let mtu = max(configuration.maximumDatagramSize, 256)
        guard sb_SSL_set_mtu(ssl, mtu) > 0, SSL_set_tlsext_use_srtp(ssl, profiles) == 0 else {
            SSL_free(ssl)
            ERR_clear_error()
            throw DTLSError(.libraryFailure, "OpenSSL refused the MTU \(mtu) or the profiles \(profiles)")
        }
        let callbacks = DTLSCallbackState(
            remoteFingerprints: configuration.remoteFingerprints,
            initialTimeout: Self.microseconds(max(configuration.initialRetransmissionTimeout, .milliseconds(20))),
            maximumTimeout: Self.microseconds(configuration.maximumRetransmissionTimeout))
        SSL_set_ex_data(ssl, dtlsExDataIndex, Unmanaged.passUnretained(callbacks).toOpaque())
        DTLS_set_timer_cb(ssl, dtlsTimerDuration)
        SSL_set_info_callback(ssl, dtlsInfo)
        if configuration.role == .client { SSL_set_connect_state(ssl) } else { SSL_set_accept_state(ssl) }
        self.ssl = ssl
        self.input = input
        self.output = output
        self.callbacks = callbacks
        self.configuration = configuration
    }

    deinit { SSL_free(ssl) }

    /// The instant ``advance(to:)`` should next be called: a retransmission or the handshake deadline.
    public var nextDeadline: MediaInstant? {
        switch state {
        case .handshaking:
            guard let retransmission = retransmissionDeadline else { return handshakeDeadline }
            return handshakeDeadline.map { min($0, retransmission) } ?? retransmission
        case .awaitingFingerprint: return handshakeDeadline
        case .idle, .connected, .failed, .closed: return nil
        }
    }

    /// The negotiated SRTP protection profile, once the handshake completed.
    public var selectedProfile: DTLSSRTPProfile? { (keys ?? pendingKeys)?.profile }

    static func microseconds(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        return UInt32(clamping: max(total, 1))
    }
}
