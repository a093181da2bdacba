import ICE
import STUN

/// One call's ICE on the signalling side: its settings and role, what this side's SDP says (credentials,
/// gathered candidates, the selected pairs), what the peer's said, and where the media path stands. Pure.
struct ICECallState {
    let settings: ICESettings
    /// This side offered ICE first (outgoing calls, and incoming ones without an offer).
    let isOfferer: Bool
    var local: LocalICEDescription
    /// Gathering is over.
    var isGathered = false
    /// The peer's ICE as last applied.
    var remote: RemoteICEDescription?
    /// `nil` until a description from the peer came; then whether ICE runs (the peer does ICE too).
    var isActive: Bool?
    /// Component 1's selected pair, as the API shows it.
    var path: CallMediaPath?
    /// The call connected in SIP while ICE still checks: its `connected` event waits for the first path.
    var holdsConnect = false
    /// This side's new credentials for the restart its answer to a re-offer starts (RFC 8445 §9).
    var pendingRestart: ICECredentials?
    /// Cancels the timer that fails the call when no pair is selected in time.
    var connectivityTimer: (() -> Void)?
    /// Component 1's valid pair media uses before a selection (RFC 8445 §12.1).
    var validPair: ICEPairInfo?
    /// Cancels the timer that connects a held call on its valid pair when no selection follows it in time.
    var validPairTimer: (() -> Void)?

    /// Cancels both timers.
    mutating func cancelTimers() {
        connectivityTimer?()
        connectivityTimer = nil
        validPairTimer?()
        validPairTimer = nil
    }

    init(settings: ICESettings, isOfferer: Bool, credentials: ICECredentials) {
        self.settings = settings
        self.isOfferer = isOfferer
        local = LocalICEDescription(credentials: credentials, candidates: [], isControlling: isOfferer)
    }

    /// A pair the agent selected: the SDP's next offers and answers name it; returns component 1's path when
    /// it changed.
    mutating func selected(_ pair: ICEPairInfo) -> CallMediaPath? {
        local.selected[pair.component] = pair
        guard pair.component == 1 else { return nil }
        let path = CallMediaPath(pair)
        guard path != self.path else { return nil }
        self.path = path
        return path
    }
}

extension CallMediaPath {
    /// The API's view of a selected pair: relayed if either candidate is, else peer-reflexive, else
    /// server-reflexive, else host; the local candidate's address (the relayed one for a relay) and the
    /// remote candidate's.
    init(_ pair: ICEPairInfo) {
        let types = [pair.local.type, pair.remote.type]
        let type: CandidateType =
            if types.contains(.relayed) {
                .relayed
            } else if types.contains(.peerReflexive) {
                .peerReflexive
            } else if types.contains(.serverReflexive) {
                .serverReflexive
            } else {
                .host
            }
        self.init(
            candidateType: type, localAddress: pair.local.address.description,
            remoteAddress: pair.remote.address.description)
    }
}
