import Media
import SIPTransport

/// What every stream of one `MediaEngine` shares: the media loop, the media clock, the provider's
/// DTLS-SRTP settings and where closed streams' sockets go. One object per engine, referenced by each
/// stream instead of copied into it (two existentials, the settings and a closure context are about 150
/// bytes a call).
final class MediaStreamContext: @unchecked Sendable {
    // @unchecked Sendable: the constants are Sendable; `lastPeer` is read and written only on `loop` (by the
    // streams' `configure`), never in overlapping accesses (no run-time exclusivity checks).
    let loop: any EventLoopProtocol
    let clock: any MediaClock
    /// The provider's DTLS-SRTP identity and timers, when calls may use DTLS.
    let dtls: DTLSCallSettings?
    /// Takes a closed stream's sockets and the address they are bound on (media loop): the engine pools
    /// them; by default they are closed.
    let release: @Sendable (_ pair: MediaPair, _ host: String) -> Void
    /// The peer address last parsed, by its host (media loop): most calls come from the hosts of the calls
    /// before them (a proxy, a gateway), and parsing the text costs more than the rest of the address's
    /// handling in a negotiation.
    @exclusivity(unchecked) private var lastPeer: (host: String, address: SocketAddress)?

    init(
        loop: any EventLoopProtocol, clock: any MediaClock, dtls: DTLSCallSettings?,
        release: @escaping @Sendable (_ pair: MediaPair, _ host: String) -> Void = { pair, _ in pair.close() }
    ) {
        self.loop = loop
        self.clock = clock
        self.dtls = dtls
        self.release = release
    }

    /// The socket address of numeric `host` and `port`; `nil` when `host` is not an IP address (media loop).
    func peerAddress(host: String, port: UInt16) -> SocketAddress? {
        if let lastPeer, lastPeer.host == host { return lastPeer.address.with(port: port) }
        guard let address = SocketAddress(ip: host, port: port) else { return nil }
        lastPeer = (host, address)
        return address
    }
}
