/// What a ``DTLSEngine`` asks its driver to do, in order.
public enum DTLSAction: Hashable, Sendable {
    /// Send this datagram to the peer over the media socket.
    case send([UInt8])
    /// The handshake completed and the peer's certificate matched its fingerprint: SRTP may start with these
    /// keys (RFC 5764 §4.2).
    case connected(DTLSSRTPKeys)
    /// The association failed for good; the engine does nothing more.
    case failed(DTLSError)
    /// The peer closed the association (close_notify).
    case closed
}
