import SIPCore
import SIPMessage
import SIPTransaction
import SIPTransport
import SIPUserAgent

/// The parts of a `SessionEntry` that only some sessions need, or only while they are set up: the INVITEs
/// sent (an outgoing call), the last transport error, and what waits for ICE candidates. Out of line, so that
/// an established session holds one reference instead of all of them.
final class OccasionalSessionState: OutOfLineState {
    var sentInvites: [RequestToken: (via: String, destination: Destination)] = [:]
    var transportError: TransportError?
    var awaitingMedia: SessionEntry.AwaitingMedia?

    /// Everything is at its default: the entry can let the box go.
    var isEmpty: Bool { sentInvites.isEmpty && transportError == nil && awaitingMedia == nil }
}

extension SessionEntry {
    /// The INVITEs sent (top Via and destination) per token, for their CANCELs (RFC 3261 §9.1).
    var sentInvites: [RequestToken: (via: String, destination: Destination)] {
        get { occasional?.sentInvites ?? [:] }
        set { updateOccasional { $0.sentInvites = newValue } }
    }

    /// The last transport error a request of the session met (a TLS certificate refused, a connection
    /// refused): why the session's made-up 503 happened.
    var transportError: TransportError? {
        get { occasional?.transportError }
        set { updateOccasional { $0.transportError = newValue } }
    }

    /// ICE is gathering the session's candidates: what waits for them.
    var awaitingMedia: AwaitingMedia? {
        get { occasional?.awaitingMedia }
        set { updateOccasional { $0.awaitingMedia = newValue } }
    }

    private func updateOccasional(_ change: (OccasionalSessionState) -> Void) {
        OccasionalSessionState.update(&occasional, change)
    }
}
