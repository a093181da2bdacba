import Media
import SIPTransport

/// What every stream of one `MediaEngine` shares: the media loop, the media clock, the provider's
/// DTLS-SRTP settings and where closed streams' sockets go. One object per engine, referenced by each
/// stream instead of copied into it (two existentials, the settings and a closure context are about 150
/// bytes a call).
final class MediaStreamContext: Sendable {
    let loop: any EventLoopProtocol
    let clock: any MediaClock
    /// The provider's DTLS-SRTP identity and timers, when calls may use DTLS.
    let dtls: DTLSCallSettings?
    /// Takes a closed stream's sockets and the address they are bound on (media loop): the engine pools
    /// them; by default they are closed.
    let release: @Sendable (_ pair: MediaPair, _ host: String) -> Void

    init(
        loop: any EventLoopProtocol, clock: any MediaClock, dtls: DTLSCallSettings?,
        release: @escaping @Sendable (_ pair: MediaPair, _ host: String) -> Void = { pair, _ in pair.close() }
    ) {
        self.loop = loop
        self.clock = clock
        self.dtls = dtls
        self.release = release
    }
}
