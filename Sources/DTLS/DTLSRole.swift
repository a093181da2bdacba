/// Which side of the DTLS handshake an engine takes (RFC 5763 §5): the `a=setup:active` endpoint is the DTLS
/// client, the `passive` one the server.
public enum DTLSRole: Hashable, Sendable {
    /// Sends the ClientHello (`a=setup:active`).
    case client
    /// Waits for the ClientHello (`a=setup:passive`).
    case server
}
