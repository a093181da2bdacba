import Switchboard
import Testing

/// What an app or the CLI reads from its user is checked by the public API, the way the provider checks it.
@Suite struct ConfigurationInputTests {
    @Test(
        arguments: [
            ("sip:alice@example.com", "alice", "example.com", nil, false),
            ("sips:pbx.example.com:5061", nil, "pbx.example.com", 5061, true),
            ("sip:bob@[2001:db8::1]:5070", "bob", "[2001:db8::1]", 5070, false),
        ] as [(String, String?, String, UInt16?, Bool)])
    func sipAddressesParse(text: String, user: String?, host: String, port: UInt16?, secure: Bool) throws {
        let address = try SIPAddress(text)
        #expect(address.user == user)
        #expect(address.host == host)
        #expect(address.port == port)
        #expect(address.isSecure == secure)
        #expect(address.description == text)
    }

    @Test(arguments: ["alice@example.com", "tel:+15551234", "sip:", "sip:alice@exa mple.com", "http://x"])
    func nonSIPTextIsAConfigurationError(text: String) {
        #expect {
            _ = try SIPAddress(text)
        } throws: { error in
            (error as? CallError)?.kind == .configuration && (error as? CallError)?.detail?.contains(text) == true
        }
    }

    @Test func anAddressFromPartsEscapesTheUser() throws {
        let address = try SIPAddress(user: "alice smith", host: "10.0.0.1", port: 5060)
        #expect(address.description == "sip:alice%20smith@10.0.0.1:5060")
        #expect(address.user == "alice smith")
        #expect(throws: CallError.self) { try SIPAddress(user: "alice", host: "bad host") }
    }

    @Test(arguments: [
        (SIPTransportKind.udp, "10.0.0.1", "10.0.0.1:5060"),
        (.tls, "10.0.0.1", "10.0.0.1:5061"),
        (.tcp, ":5080", "0.0.0.0:5080"),
        (.udp, "[::1]:0", "[::1]:0"),
    ])
    func listenerAddressesAreWrittenOutInFull(kind: SIPTransportKind, text: String, expected: String) throws {
        let listener = try CallProviderConfiguration.Listener(kind, parsing: text)
        #expect(listener.transport == kind)
        #expect(listener.address == expected)
    }

    @Test(arguments: ["example.com:5060", "10.0.0.1:99999", "10.0.0", ""])
    func badListenerAddressesAreRefused(text: String) {
        #expect(throws: CallError.self) { try CallProviderConfiguration.Listener(.udp, parsing: text) }
    }

    @Test func defaultPortsFollowTheTransport() {
        #expect(SIPTransportKind.udp.defaultPort == 5060)
        #expect(SIPTransportKind.tcp.defaultPort == 5060)
        #expect(SIPTransportKind.tls.defaultPort == 5061)
    }
}
