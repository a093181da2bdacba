import SDP
import SIPMessage
import SIPUserAgent
import SwitchboardTesting
import Testing

@testable import SIPTransport
@testable import Switchboard

/// A session setup shares what sessions have in common and keeps what differs per session.
struct SessionSetupReuseTests {
    private func makeSetup() -> SessionSetup {
        SessionSetup(
            settings: SessionSetup.Settings(CallProviderConfiguration()),
            random: EngineRandom(source: SeededRandomBytes(seed: 7)))
    }

    @Test func eachOfferAnswerEngineKeepsItsOwnPortAndAddress() {
        var setup = makeSetup()
        let first = setup.offerAnswer(LocalMedia(host: "10.0.0.1", port: 4000))
        let second = setup.offerAnswer(LocalMedia(host: "10.0.0.1", port: 4002))
        let elsewhere = setup.offerAnswer(LocalMedia(host: "10.0.0.9", port: 4004))
        #expect(first.configuration.rtpPort == 4000)
        #expect(second.configuration.rtpPort == 4002)
        #expect(second.configuration.address == "10.0.0.1")
        #expect(elsewhere.configuration.address == "10.0.0.9")
        #expect(elsewhere.configuration.rtpPort == 4004)
        #expect(first.configuration.rtpPort == 4000)
    }

    @Test func eachSessionConfigurationNamesItsOwnContact() throws {
        var setup = makeSetup()
        let local = try #require(SocketAddress(ip: "10.0.0.1", port: 5060))
        let other = try #require(SocketAddress(ip: "10.0.0.1", port: 5070))
        let udp = Destination(transport: .udp, address: local)
        let tcp = Destination(transport: .tcp, address: local)
        let alice = setup.configuration(contactUser: "alice", local: local, udp)
        let bob = setup.configuration(contactUser: "bob", local: local, udp)
        let aliceAgain = setup.configuration(contactUser: "alice", local: local, udp)
        let aliceOverTCP = setup.configuration(contactUser: "alice", local: local, tcp)
        let aliceElsewhere = setup.configuration(contactUser: "alice", local: other, udp)
        #expect(alice.contact.description.contains("alice@10.0.0.1"))
        #expect(bob.contact.description.contains("bob@10.0.0.1"))
        #expect(aliceAgain.contact == alice.contact)
        #expect(aliceOverTCP.contact.description.contains("transport=tcp"))
        #expect(aliceElsewhere.contact.description.contains(":5070"))
        setup.settings.userAgent = "changed"
        #expect(setup.configuration(contactUser: "alice", local: local, udp).userAgent == "changed")
    }
}
