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
        if uri.transport == "tls" {
            uri.isSecure = true
            uri.transport = nil
            return uri
        }
        guard uri.transport == nil, !uri.isSecure, let transport else { return uri }
        if transport == .tls {
            uri.isSecure = true
        } else if transport == .tcp {
            uri.transport = "tcp"
        }
        return uri
    }

    /// `uri` in the form `transport` asks for, when it is a SIP URI.
    static func uri(_ uri: URI, for transport: TransportProtocol?) -> URI {
        guard let sip = uri.sipURI else { return uri }
        return .sip(Self.uri(sip, for: transport))
    }

    /// This side's Contact for a flow: `user` at the local address the flow uses (no port when it is 0), in
    /// the flow's form (a TLS flow gives a `sips:` Contact).
    static func contact(user: String, host: SIPHost, port: UInt16, flow: TransportProtocol) -> SIPURI {
        uri(SIPURI(user: user, host: host, port: port == 0 ? nil : port), for: flow)
    }
}
