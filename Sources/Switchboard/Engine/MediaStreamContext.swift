import Media
import SIPTransport

/// What every stream of one `MediaEngine` shares: the media loop, the media clock and the provider's
/// DTLS-SRTP settings. One object per engine, referenced by each stream instead of copied into it (two
/// existentials and the settings are about a hundred bytes a call).
final class MediaStreamContext: Sendable {
    let loop: any EventLoopProtocol
    let clock: any MediaClock
    /// The provider's DTLS-SRTP identity and timers, when calls may use DTLS.
    let dtls: DTLSCallSettings?

    init(loop: any EventLoopProtocol, clock: any MediaClock, dtls: DTLSCallSettings?) {
        self.loop = loop
        self.clock = clock
        self.dtls = dtls
    }
}
