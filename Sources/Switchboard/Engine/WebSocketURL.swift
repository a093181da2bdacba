import SIPMessage
import SIPTransport

/// A `ws://` or `wss://` URL (RFC 6455 §3): where an account's WebSocket flow goes, or where a listener
/// answers upgrades. Pure.
struct WebSocketURL: Hashable {
    /// `wss://`: WebSocket over TLS.
    var isSecure: Bool
    /// The host as written: a domain, an IPv4 address or an IPv6 address without brackets.
    var host: String
    /// The port: the scheme's (80, 443) when the URL names none.
    var port: UInt16
    /// The resource: the path (and query), `/` when empty.
    var resource: String

    /// Parses `ws://HOST[:PORT][/PATH]` or `wss://...`; nil for anything else (no user info, no fragment).
    init?(_ text: String) {
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("ws://") {
            isSecure = false
            rest = text.dropFirst(5)
        } else if lower.hasPrefix("wss://") {
            isSecure = true
            rest = text.dropFirst(6)
        } else {
            return nil
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        resource = slash == rest.endIndex ? "/" : String(rest[slash...])
        guard !authority.isEmpty, !authority.contains("@"), !resource.contains("#"),
            !resource.contains(where: { $0 == " " || $0.isNewline })
        else { return nil }
        let transport: TransportProtocol = isSecure ? .wss : .ws
        guard let (host, port) = Self.hostAndPort(authority, defaultPort: transport.defaultPort) else { return nil }
        self.host = host
        self.port = port
    }

    private static func hostAndPort(_ authority: Substring, defaultPort: UInt16) -> (String, UInt16)? {
        var hostPart = authority
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portPart = after.dropFirst()
            }
            guard SocketAddress(ip: String(hostPart), port: 0)?.family == .ipv6 else { return nil }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty, SIPHost(String(hostPart)) != nil else { return nil }
        var port = defaultPort
        if let portPart {
            guard let value = UInt16(portPart) else { return nil }
            port = value
        }
        return (String(hostPart), port)
    }

    /// The transport: WS or WSS.
    var transport: TransportProtocol { isSecure ? .wss : .ws }

    /// The first hop as a SIP URI in the RFC 7118 form (`sip:HOST:PORT;transport=ws`, or `sips:` for WSS).
    var sipURI: SIPURI? {
        guard let host = SIPHost(self.host) else { return nil }
        var uri = SIPURI(host: host, port: port)
        uri.transport = "ws"
        uri.isSecure = isSecure
        return uri
    }

    /// The address a listener on this URL binds (`host` must be an address).
    var socketAddress: SocketAddress? { SocketAddress(ip: host, port: port) }
}
