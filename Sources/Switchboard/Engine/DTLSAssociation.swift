import DTLS
import Media
import SDP
import SIPTransport

/// One DTLS-SRTP association of a stream (RFC 5763, RFC 5764): the sans-I/O engine, the tls-ids that name it
/// (RFC 8842), the peer address its datagrams come from, and the loop timer armed for its deadline. Confined
/// to the media loop, as its stream is.
final class DTLSAssociation {
    let engine: DTLSEngine
    /// Client (`a=setup:active`) or server.
    let role: DTLSRole
    /// The tls-ids of the negotiation that made it; `nil` for a server that a ClientHello started before the
    /// answer came (RFC 5763 §5), until that answer adopts it.
    var tlsIDs: (local: TLSID, remote: TLSID?)?
    /// Where the peer's DTLS datagrams last came from: where a server answers without ICE.
    var peer: SocketAddress?
    /// The loop timer for the engine's next deadline, and that deadline.
    var timer: (handle: TimerHandle, deadline: MediaInstant)?
    /// Whether `start` ran.
    var isStarted = false
    /// Whether the keys went to the session.
    var isKeyed = false

    init(engine: DTLSEngine, role: DTLSRole, tlsIDs: (local: TLSID, remote: TLSID?)?) {
        self.engine = engine
        self.role = role
        self.tlsIDs = tlsIDs
    }

    /// Whether `parameters` name this association again (RFC 8842 §5.3: the same tls-ids, and the role the
    /// negotiation gives). A server not adopted yet is taken by the first negotiation that makes this side
    /// passive.
    func isNamed(by parameters: NegotiatedSession.DTLSParameters) -> Bool {
        guard Self.role(of: parameters) == role else { return false }
        guard let tlsIDs else { return role == .server }
        guard tlsIDs.local == parameters.localTLSID else { return false }
        guard let known = tlsIDs.remote, let given = parameters.remoteTLSID else { return true }
        return known == given
    }

    /// The DTLS role a negotiated `a=setup` gives this side (RFC 5763 §5).
    static func role(of parameters: NegotiatedSession.DTLSParameters) -> DTLSRole {
        parameters.setup == .active ? .client : .server
    }
}

extension MediaSecurityFailure {
    /// The API's failure for an engine's error.
    init(_ error: DTLSError) {
        let kind: Kind
        if error.code == .fingerprintMismatch {
            kind = .fingerprintMismatch
        } else if error.code == .handshakeTimeout {
            kind = .handshakeTimeout
        } else if error.code == .alertReceived {
            kind = .peerRefused
        } else {
            kind = .handshakeFailed
        }
        self.init(kind, detail: error.description)
    }
}
