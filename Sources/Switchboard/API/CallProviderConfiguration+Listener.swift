import SIPTransport

extension CallProviderConfiguration.Listener {
    /// A listener over `transport` on `text`, checked and written out in full: `ADDRESS:PORT`, `ADDRESS`
    /// (on the transport's default port) or `:PORT` (on every IPv4 address); IPv6 addresses in brackets.
    /// - Throws: `CallError.configuration` naming the text when it is not such an address.
    public init(_ transport: SIPTransportKind, parsing text: String) throws(CallError) {
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
