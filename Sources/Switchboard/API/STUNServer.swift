/// A STUN server (RFC 8489) that calls ask for their server-reflexive address (RFC 8445 §5.1.1.2).
public struct STUNServer: Sendable, Hashable, CustomStringConvertible {
    /// The server's IP address or host name.
    public var host: String
    /// The server's UDP port, 3478 by default (RFC 8489 §18.6).
    public var port: UInt16

    /// - Parameters:
    ///   - host: the server's IP address or host name.
    ///   - port: its UDP port.
    public init(host: String, port: UInt16 = 3478) {
        self.host = host
        self.port = port
    }

    /// A server from `HOST:PORT`, `HOST` (port 3478), `[IPV6]:PORT` or a `stun:` URI (RFC 7064).
    /// - Throws: `CallError.configuration` naming what is wrong.
    public init(parsing text: String) throws(CallError) {
        var rest = Substring(text)
        if rest.lowercased().hasPrefix("stun:") { rest = rest.dropFirst(5) }
        guard let (host, port) = ServerAddress.split(rest, defaultPort: 3478) else {
            throw .configuration("not a STUN server HOST:PORT: \(text)")
        }
        self.init(host: host, port: port)
    }

    /// `HOST:PORT`, IPv6 in brackets.
    public var description: String { ServerAddress.text(host: host, port: port) }
}

/// A TURN server (RFC 8656) and the long-term credentials of its user: calls allocate a relayed address on it
/// (RFC 8445 §5.1.1.2). The password never appears in `description`, `debugDescription` or a mirror.
public struct TURNServer: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// How the client reaches the server; the relay to the peers is UDP whatever this is.
    ///
    /// A struct over a code rather than an enum, so a new transport is not a breaking change.
    public struct Transport: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        enum Code: String, CaseIterable {
            case udp, tcp, tls
        }

        let code: Code

        init(code: Code) { self.code = code }

        /// `udp`, `tcp` or `tls`.
        public var rawValue: String { code.rawValue }

        /// The transport named `rawValue`, or `nil` for a name this version does not know.
        public init?(rawValue: String) {
            guard let code = Code(rawValue: rawValue) else { return nil }
            self.init(code: code)
        }

        /// UDP, from the call's own media socket (RFC 8656 §3.1).
        public static let udp = Transport(code: .udp)
        /// TCP (RFC 8656 §3.1, the framing of RFC 8489 §6.2.2).
        public static let tcp = Transport(code: .tcp)
        /// TLS over TCP, the server's certificate and name checked (RFC 8656 §3.1; `turns:` URIs).
        public static let tls = Transport(code: .tls)

        /// Every transport this version knows: `udp`, `tcp`, `tls`.
        public static var allCases: [Transport] { Code.allCases.map(Transport.init(code:)) }

        /// The raw value.
        public var description: String { rawValue }
    }

    /// The server's IP address or host name (also the name its TLS certificate must carry).
    public var host: String
    /// The server's port: 3478 for UDP and TCP, 5349 for TLS by default (RFC 8656 §3.1).
    public var port: UInt16
    /// How the client reaches the server.
    public var transport: Transport
    /// The TURN user name.
    public var username: String
    /// The TURN password: never logged, printed or traced.
    public var password: String

    /// - Parameters:
    ///   - host: the server's IP address or host name.
    ///   - port: its port; 3478, or 5349 over TLS, when `nil`.
    ///   - transport: how to reach it.
    ///   - username: the TURN user.
    ///   - password: its password.
    public init(
        host: String, port: UInt16? = nil, transport: Transport = .udp, username: String, password: String
    ) {
        self.host = host
        self.port = port ?? (transport == .tls ? 5349 : 3478)
        self.transport = transport
        self.username = username
        self.password = password
    }

    /// A server from its URI (RFC 7065): `turn:HOST[:PORT][?transport=udp|tcp]` or
    /// `turns:HOST[:PORT][?transport=tcp]` (TLS).
    /// - Parameters:
    ///   - url: the URI.
    ///   - username: the TURN user.
    ///   - password: its password.
    /// - Throws: `CallError.configuration` naming what is wrong (never the password).
    public init(url: String, username: String, password: String) throws(CallError) {
        let lower = url.lowercased()
        let isSecure: Bool
        var rest: Substring
        if lower.hasPrefix("turns:") {
            isSecure = true
            rest = Substring(url).dropFirst(6)
        } else if lower.hasPrefix("turn:") {
            isSecure = false
            rest = Substring(url).dropFirst(5)
        } else {
            throw .configuration("a TURN URI starts with turn: or turns: (\(url))")
        }
        var transport: Transport = isSecure ? .tls : .udp
        if let query = rest.firstIndex(of: "?") {
            let parameter = rest[rest.index(after: query)...].lowercased()
            rest = rest[..<query]
            switch parameter {
            case "transport=udp" where !isSecure: transport = .udp
            case "transport=tcp": transport = isSecure ? .tls : .tcp
            default: throw .configuration("unknown TURN URI parameter \(parameter) (transport=udp or tcp)")
            }
        }
        guard let (host, port) = ServerAddress.split(rest, defaultPort: isSecure ? 5349 : 3478) else {
            throw .configuration("not a TURN server HOST:PORT: \(url)")
        }
        self.init(host: host, port: port, transport: transport, username: username, password: password)
    }

    /// The server's URI without credentials: `turn:192.0.2.1:3478?transport=tcp`, `turns:turn.example.com:5349`.
    public var url: String {
        let address = ServerAddress.text(host: host, port: port)
        switch transport.code {
        case .udp: return "turn:\(address)?transport=udp"
        case .tcp: return "turn:\(address)?transport=tcp"
        case .tls: return "turns:\(address)?transport=tcp"
        }
    }

    /// The URI and the user, never the password.
    public var description: String { "\(url) user \(username)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "host": host, "port": port, "transport": transport, "username": username, "password": "<redacted>",
            ])
    }
}

/// `HOST:PORT` of a STUN or TURN server.
enum ServerAddress {
    /// The host (brackets of an IPv6 literal removed) and port of `text`; `defaultPort` when it names none;
    /// `nil` when the host is empty or the port is not a number in 1...65535.
    static func split(_ text: Substring, defaultPort: UInt16) -> (String, UInt16)? {
        var host = text
        var port = defaultPort
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let tail = text[text.index(after: close)...]
            if !tail.isEmpty {
                guard tail.hasPrefix(":"), let value = UInt16(tail.dropFirst()), value > 0 else { return nil }
                port = value
            }
        } else if let colon = text.lastIndex(of: ":") {
            guard text.firstIndex(of: ":") == colon else { return nil }
            guard let value = UInt16(text[text.index(after: colon)...]), value > 0 else { return nil }
            host = text[..<colon]
            port = value
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "/" || $0 == "@" || $0 == "?" }) else {
            return nil
        }
        return (String(host), port)
    }

    /// `HOST:PORT`, an IPv6 literal in brackets.
    static func text(host: String, port: UInt16) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
