import ICE
import SIPTransport
import STUN

/// How a call's ICE starts on the media loop, made on the signalling side: the role, the credentials, the
/// components to gather, and the STUN and TURN servers resolved to addresses.
struct ICEPlan: Sendable {
    /// A TURN server with its address resolved.
    struct Relay: Sendable {
        var server: TURNServer
        var address: SocketAddress
    }

    /// Controlling for the offerer, controlled for the answerer (RFC 8445 §6.1.1; a lite peer changes it).
    var role: ICERole
    var credentials: ICECredentials
    /// Component 1, and 2 when RTCP may need its own port (RFC 8858: without `a=rtcp-mux-only` the offerer
    /// gathers it; the answerer only when the offer has no `a=rtcp-mux`).
    var components: [Int]
    /// The offerer learns whether RTCP is muxed from the answer: its component-2 candidates join the checks
    /// only then.
    var isOfferer: Bool
    var isRelayOnly: Bool
    var stunServers: [STUNTransportAddress]
    var relays: [Relay]
    var gatheringTimeout: Duration
    /// Trust and checks of `turns:` servers (the provider's TLS settings).
    var tls: TLSConfiguration
}

/// What an `ICEDriver` reports to the signalling side.
struct ICEDriverEvents: Sendable {
    /// Gathering is over: the candidates, by descending priority (empty when none could be had).
    var gathered: @Sendable ([ICECandidate]) -> Void = { _ in }
    /// A component's selected pair (the first, or a new one after a restart).
    var selected: @Sendable (ICEPairInfo) -> Void = { _ in }
    /// Before any selection, the valid pair media now uses (RFC 8445 §12.1): the first, then a better one.
    var valid: @Sendable (ICEPairInfo) -> Void = { _ in }
    /// The selected pair of a component lost consent (RFC 7675): media on it stopped.
    var consentLost: @Sendable (ICEPairInfo) -> Void = { _ in }
    /// The check list failed (RFC 8445 §8.1.2).
    var failed: @Sendable () -> Void = {}
}
