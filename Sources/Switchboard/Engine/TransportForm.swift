import SIPMessage
import SIPTransport

/// How a transport shows in the SIP URIs this side writes: the one rule behind every Request-URI an account
/// builds (REGISTER, INVITE, SUBSCRIBE, MESSAGE, OPTIONS, the INVITE a REFER or a 3xx asks for), every
/// Contact, and every hop the drivers resolve (libre's `sip_transp_param`). Keep it the only copy.
///
/// - TLS: a `sips:` URI without a `transport` parameter (RFC 3261 §19.1, §26.2.2). So a TLS account sends
///   to `sips:` Request-URIs with a `sips:` Contact (§8.1.1.8, which requires the `sips:` Contact whenever
///   the Request-URI is `sips:`; §12.1.1 for the UAS), and every hop is asked for TLS. A `sip:` target
///   that the user typed, a PBX wrote in Refer-To, or a 3xx Contact named is upgraded to `sips:` for a TLS
///   account: the account asked for TLS, and a `sip:` URI would let a proxy take the next hop in the
///   clear. `transport=tls` is never written (RFC 5630 §3.1.3 deprecates it); one that comes in is read
///   as `sips:`.
/// - TCP: a `sip:` URI with `;transport=tcp` (RFC 3261 §19.1.1).
/// - WS: a `sip:` URI with `;transport=ws` (RFC 7118 §5.2).
/// - WSS: a `sips:` URI with `;transport=ws` (RFC 7118 §5.2: there is no `transport=wss`). One that comes in
///   (Kamailio and libre write it) is read as `sips:` with `transport=ws`.
/// - UDP: the URI as given.
///
/// A `transport` parameter already in a URI wins over the account's transport (CLI.md), so
/// `sip:bob@host;transport=udp` stays UDP for a TLS account, and a `sips:` URI stays `sips:` for any.
enum TransportForm {
    /// `uri` in the form `transport` asks for (see the type's rule); non-SIP URIs are returned unchanged.
    /// - Parameters:
    ///   - uri: a Request-URI, Contact or next hop.
    ///   - transport: the account's transport (Request-URIs) or the flow's (Contacts); `nil` leaves the URI
    ///     to RFC 3263.
    static func uri(_ uri: SIPURI, for transport: TransportProtocol?) -> SIPURI {
        var uri = uri
        // Read once: the parameter is looked up (and its value made) on every read.
        let current = uri.transport
        switch current {
        case "tls":
            uri.isSecure = true
            uri.transport = nil
            return uri
        case "wss":
            uri.isSecure = true
            uri.transport = "ws"
            return uri
        default: break
        }
        guard current == nil, let transport else { return uri }
        // A `sips:` URI stays as it is, except that a WSS flow says it is WebSocket.
        guard !uri.isSecure || transport == .wss else { return uri }
        switch transport {
        case .tls: uri.isSecure = true
        case .tcp: uri.transport = "tcp"
        case .ws: uri.transport = "ws"
        case .wss:
            uri.isSecure = true
            uri.transport = "ws"
        case .udp: break
        }
        return uri
    }

    /// `uri` in the form `transport` asks for, when it is a SIP URI.
    static func uri(_ uri: URI, for transport: TransportProtocol?) -> URI {
        guard let sip = uri.sipURI else { return uri }
        return .sip(Self.uri(sip, for: transport))
    }

    /// This side's Contact for a flow: `user` at the local address the flow uses (no port when it is 0), in
    /// the flow's form (a TLS flow gives a `sips:` Contact). The address is `SIPTransportLayer.localAddress
    /// (for:)`'s, the one rule for Via and Contact: the listener of the flow's transport when there is one;
    /// for TCP and TLS without one, the local address and port of the connection the request leaves on (so a
    /// proxy or registrar that routes to the Contact finds that connection and reuses it, as it does for
    /// pjsip and baresip, instead of opening one to port 5060 or 5061 where nothing listens); for UDP
    /// without one, the route's address and no port. A WebSocket client with no listener of its own
    /// (port 0) cannot know an address to be reached at: it names `webSocketClientHost`, a `.invalid` host,
    /// as RFC 7118 §8's examples do, and the server routes requests back over the flow.
    static func contact(
        user: String, host: SIPHost, port: UInt16, flow: TransportProtocol, webSocketClientHost: String
    ) -> SIPURI {
        var host = host
        if flow.isWebSocket, port == 0, let name = SIPHost(webSocketClientHost) { host = name }
        return uri(SIPURI(user: user, host: host, port: port == 0 ? nil : port), for: flow)
    }
}
