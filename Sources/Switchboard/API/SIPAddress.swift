import SIPMessage

/// A SIP or SIPS URI as a configuration names it (an address of record, a registrar, an outbound proxy, a
/// mailbox), checked the way `CallProvider` checks it, so an app or a tool can refuse bad input where it is
/// typed (RFC 3261 §19.1).
public struct SIPAddress: Sendable, Hashable, CustomStringConvertible {
    private let uri: SIPURI

    /// Parses `text`, a `sip:` or `sips:` URI.
    /// - Throws: `CallError.configuration` naming the text when it is not one.
    public init(_ text: String) throws(CallError) {
        guard let uri = try? SIPURI(text) else { throw .configuration("not a SIP URI: \(text)") }
        self.uri = uri
    }

    /// The URI of `user` at `host` (a name, an IPv4 address or a bracketed IPv6 address), on `port`.
    /// - Parameters:
    ///   - user: the user part, unescaped; `nil` for a server's URI.
    ///   - host: the host part.
    ///   - port: the port; `nil` leaves it to DNS (RFC 3263).
    ///   - isSecure: `sips:` rather than `sip:`.
    /// - Throws: `CallError.configuration` naming the host when it is not a host name or address.
    public init(user: String?, host: String, port: UInt16? = nil, isSecure: Bool = false) throws(CallError) {
        guard let parsed = SIPHost(host) else { throw .configuration("not a host name or address: \(host)") }
        self.uri = SIPURI(user: user, host: parsed, port: port, isSecure: isSecure)
    }

    /// The user part, unescaped, if there is one.
    public var user: String? { uri.user }
    /// The host part as written in the URI.
    public var host: String { uri.host.description }
    /// The port, if the URI names one.
    public var port: UInt16? { uri.port }
    /// Whether the URI is `sips:`.
    public var isSecure: Bool { uri.isSecure }

    /// The URI as text, the form `Account` takes.
    public var description: String { uri.description }
}
