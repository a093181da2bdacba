import SIPTransport

extension CallProviderConfiguration.Listener {
    /// A listener over `transport` on `text`, checked and written out in full: `ADDRESS:PORT`, `ADDRESS`
    /// (on the transport's default port) or `:PORT` (on every IPv4 address); IPv6 addresses in brackets.
    /// - Throws: `CallError.configuration` naming the text when it is not such an address.
    ///   For WS and WSS, `text` may also be a URL (`ws://ADDRESS:PORT/PATH`), as `init(url:)` reads it.
    public init(_ transport: SIPTransportKind, parsing text: String) throws(CallError) {
        if text.contains("://") {
            try self.init(url: text)
            guard self.transport == transport else { throw .configuration("\(text) is not a \(transport) URL") }
            return
        }
        guard let address = Self.socketAddress(text, transport: transport) else {
            throw .configuration("bad listener address \(text)")
        }
        self.init(transport, address.description)
    }

    /// The socket address `text` names for `transport`, as `init(_:parsing:)` reads it.
    static func socketAddress(_ text: String, transport: SIPTransportKind) -> SocketAddress? {
        SocketAddress(parsing: text.hasPrefix(":") ? "0.0.0.0" + text : text, defaultPort: transport.defaultPort)
    }
}

extension CallProviderConfiguration.Listener {
    /// A WebSocket listener (RFC 7118 §4) from its URL: `ws://ADDRESS:PORT/PATH` or `wss://...` (WSS needs
    /// `tls.certificateFile`); the address is numeric (`0.0.0.0`, `[::]`, `127.0.0.1`), port 0 picks one, and
    /// upgrades are answered on PATH only (`/` when the URL has none).
    /// - Throws: `CallError.configuration` naming the text when it is not such a URL.
    public init(url text: String) throws(CallError) {
        guard let url = WebSocketURL(text), let address = url.socketAddress else {
            throw .configuration("bad WebSocket listener URL \(text)")
        }
        self.init(url.isSecure ? .wss : .ws, address.description, resource: url.resource)
    }
}
