import Media
import SIPTransport
import SwitchboardTesting
import Testing

@testable import Switchboard

/// The engine-wide context of media streams: the peer address it parses once per host and reuses.
@Suite("Media stream context")
struct MediaStreamContextTests {
    @Test func peerAddressesMatchAFreshParseWhateverCameBefore() {
        let context = MediaStreamContext(loop: VirtualEventLoop(), clock: SystemMediaClock(), dtls: nil)
        let peers: [(String, UInt16)] = [
            ("192.0.2.10", 4000), ("192.0.2.10", 4001), ("198.51.100.7", 30000), ("192.0.2.10", 5000),
            ("2001:db8::1", 6000), ("2001:db8::1", 6001), ("not-an-address", 7000), ("198.51.100.7", 30001),
        ]
        for (host, port) in peers {
            let address = context.peerAddress(host: host, port: port)
            #expect(address == SocketAddress(ip: host, port: port), "\(host) \(port)")
        }
        #expect(context.peerAddress(host: "192.0.2.10", port: 9)?.port == 9)
        #expect(context.peerAddress(host: "192.0.2.11", port: 9)?.description == "192.0.2.11:9")
    }
}
