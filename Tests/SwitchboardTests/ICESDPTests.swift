import ICE
import SDP
import STUN
import Testing

@testable import Switchboard

/// What a call's SDP says about ICE (RFC 8839), both ways.
@Suite("ICE in the call's SDP")
struct ICESDPTests {
    static let host = STUNTransportAddress(address: .v4(0x0A00_0001), port: 40000)
    static let mapped = STUNTransportAddress(address: .v4(0xCB00_7107), port: 61000)
    static let relayed = STUNTransportAddress(address: .v4(0xC633_6409), port: 50000)
    static var credentials: ICECredentials {
        get throws { try ICECredentials(ufrag: "8hhY", password: "asd88fgpdd777uzjYhagZg") }
    }

    static func candidates() -> [ICECandidate] {
        [
            .host(address: host, localPreference: 65534),
            .serverReflexive(address: mapped, base: host, server: .v4(0xC000_0201), localPreference: 65534),
            .relayed(
                address: relayed, mappedAddress: mapped, base: host, server: .v4(0xC633_6401), localPreference: 65534),
        ]
    }

    @Test func theDefaultCandidateIsRelayThenServerReflexiveThenHost() throws {
        var local = try LocalICEDescription(
            credentials: Self.credentials, candidates: Self.candidates(), isControlling: true)
        #expect(local.defaultCandidate(component: 1)?.type == .relayed)
        local.candidates.removeAll { $0.type == .relayed }
        #expect(local.defaultCandidate(component: 1)?.type == .serverReflexive)
        local.candidates.removeAll { $0.type == .serverReflexive }
        #expect(local.defaultCandidate(component: 1)?.type == .host)
        #expect(local.defaultCandidate(component: 2) == nil)
        let media = local.media(isOffer: true)
        #expect(media?.host == "10.0.0.1")
        #expect(media?.port == 40000)
        #expect(
            media?.attributes.map(\.description) == [
                "a=ice-ufrag:8hhY", "a=ice-pwd:asd88fgpdd777uzjYhagZg", "a=ice-options:ice2",
                "a=candidate:\(local.candidates[0].sdpValue)",
            ])
    }

    @Test func afterCompletionOnlyTheSelectedPairAndTheControllingSideNamesTheRemote() throws {
        var local = try LocalICEDescription(
            credentials: Self.credentials, candidates: Self.candidates(), isControlling: true)
        let remote = ICECandidate.host(
            address: STUNTransportAddress(address: .v4(0xC633_6402), port: 7000),
            localPreference: 65534)
        local.selected[1] = ICEPairInfo(
            component: 1, local: Self.candidates()[1], remote: remote, priority: 1, state: .succeeded,
            isNominated: true)
        let offer = try #require(local.media(isOffer: true))
        #expect(offer.host == "203.0.113.7" && offer.port == 61000)
        #expect(offer.attributes.filter { $0.name == "candidate" }.count == 1)
        #expect(offer.attributes.last?.description == "a=remote-candidates:1 198.51.100.2 7000")
        let answer = try #require(local.media(isOffer: false))
        #expect(!answer.attributes.contains { $0.name == "remote-candidates" })
        local.isControlling = false
        #expect(local.media(isOffer: true)?.attributes.contains { $0.name == "remote-candidates" } == false)
    }

    static func offer(_ body: String) throws -> SessionDescription {
        let text =
            "v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\ns=-\r\nc=IN IP4 192.0.2.1\r\nt=0 0\r\n"
            + "m=audio 5000 RTP/AVP 0\r\n" + body
        return try SessionDescription(parsing: Array(text.utf8))
    }

    @Test func aPeersICEIsRead() throws {
        let description = try Self.offer(
            "a=ice-ufrag:8hhY\r\na=ice-pwd:asd88fgpdd777uzjYhagZg\r\n"
                + "a=candidate:1 1 UDP 2130706431 192.0.2.1 5000 typ host\r\n"
                + "a=candidate:2 1 UDP 2130706431 peer.local 5000 typ host\r\n"
                + "a=candidate:3 1 TCP 2130706431 192.0.2.1 9 typ host\r\n")
        guard case .ice(let remote) = RemoteICEDescription.read(description, mediaIndex: 0) else {
            Issue.record("no ICE read")
            return
        }
        #expect(try remote.credentials == Self.credentials)
        #expect(remote.candidates.count == 1)
        #expect(!remote.isLite)
        #expect(RemoteICEDescription.audioIndex(of: description) == 0)
    }

    @Test func iceLiteAndCredentialsAtSessionLevelAreRead() throws {
        let text =
            "v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\ns=-\r\nc=IN IP4 192.0.2.1\r\nt=0 0\r\na=ice-lite\r\n"
            + "a=ice-ufrag:8hhY\r\na=ice-pwd:asd88fgpdd777uzjYhagZg\r\nm=audio 5000 RTP/AVP 0\r\n"
            + "a=candidate:1 1 UDP 2130706431 192.0.2.1 5000 typ host\r\n"
        let description = try SessionDescription(parsing: Array(text.utf8))
        guard case .ice(let remote) = RemoteICEDescription.read(description, mediaIndex: 0) else {
            Issue.record("no ICE read")
            return
        }
        #expect(remote.isLite)
        #expect(remote.credentials.ufrag == "8hhY")
    }

    @Test func aRewrittenAddressIsAMismatchAndNoCredentialsNoICE() throws {
        let rewritten = try Self.offer(
            "a=ice-ufrag:8hhY\r\na=ice-pwd:asd88fgpdd777uzjYhagZg\r\n"
                + "a=candidate:1 1 UDP 2130706431 10.1.1.1 5000 typ host\r\n")
        #expect(RemoteICEDescription.read(rewritten, mediaIndex: 0) == .mismatch)
        #expect(RemoteICEDescription.read(try Self.offer("a=ice-mismatch\r\n"), mediaIndex: 0) == .mismatch)
        #expect(RemoteICEDescription.read(try Self.offer("a=sendrecv\r\n"), mediaIndex: 0) == .none)
        let badPassword = try Self.offer("a=ice-ufrag:8hhY\r\na=ice-pwd:short\r\n")
        #expect(RemoteICEDescription.read(badPassword, mediaIndex: 0) == .none)
    }
}

/// Gathering without I/O: host candidates, Binding requests, relays reported, the deadline.
@Suite("ICE gathering")
struct CandidateGatheringTests {
    struct Counter: RandomNumberGenerator {
        var value: UInt64 = 0
        mutating func next() -> UInt64 {
            value &+= 0x9E37_79B9_7F4A_7C15
            return value
        }
    }

    static let server = STUNTransportAddress(address: .v4(0xC000_0201), port: 3478)

    @Test func aMappingBehindANATIsOfferedAndOneWithoutIsNot() throws {
        var random = Counter()
        let hosts = [(1, ICESDPTests.host), (2, STUNTransportAddress(address: .v4(0x0A00_0001), port: 40001))]
        var gathering = CandidateGathering(
            hosts: hosts, stunServers: [Self.server], relays: 0, isRelayOnly: false, deadline: .milliseconds(2000),
            generator: &random)
        let sends = gathering.start(at: .zero)
        #expect(sends.count == 2)
        #expect(!gathering.isComplete(at: .milliseconds(10)))
        for send in sends {
            let request = try STUNReceivedMessage(decoding: send.bytes)
            let mapped = send.component == 1 ? ICESDPTests.mapped : hosts[1].1
            let response = STUNMessage(
                .successResponse, .binding, transactionID: request.message.transactionID,
                attributes: [.xorMappedAddress(mapped, transactionID: request.message.transactionID)])
            let decoded = try STUNReceivedMessage(decoding: response.encoded(fingerprint: true))
            let answered = gathering.receive(
                decoded, component: send.component, from: Self.server, at: .milliseconds(20))
            #expect(answered)
        }
        #expect(gathering.isComplete(at: .milliseconds(20)))
        #expect(gathering.sortedCandidates.map(\.type) == [.host, .host, .serverReflexive])
        #expect(gathering.sortedCandidates.last?.address == ICESDPTests.mapped)
    }

    @Test func theDeadlineEndsGatheringWithWhatWasFound() {
        var random = Counter()
        var gathering = CandidateGathering(
            hosts: [(1, ICESDPTests.host)], stunServers: [Self.server], relays: 1, isRelayOnly: false,
            deadline: .milliseconds(2000), generator: &random)
        // The Binding request goes at 0, 0.1, 0.3, 0.7 and 1.5 s (a 100 ms RTO, doubling).
        var sent = [gathering.start(at: .zero).count]
        for at: Int64 in [99, 100, 300, 700, 1500] { sent.append(gathering.timerFired(at: .milliseconds(at)).count) }
        #expect(sent == [1, 0, 1, 1, 1, 1])
        #expect(gathering.nextDeadline == .milliseconds(2000))
        #expect(!gathering.isComplete(at: .milliseconds(1999)))
        #expect(gathering.isComplete(at: .milliseconds(2000)))
        #expect(gathering.sortedCandidates.map(\.type) == [.host])
    }

    @Test func relayOnlyKeepsOnlyRelayedCandidates() {
        var random = Counter()
        var gathering = CandidateGathering(
            hosts: [(1, ICESDPTests.host)], stunServers: [Self.server], relays: 1, isRelayOnly: true,
            deadline: .milliseconds(2000), generator: &random)
        let sends = gathering.start(at: .zero)
        #expect(sends.isEmpty)
        #expect(!gathering.isComplete(at: .milliseconds(1)))
        gathering.relayAllocated(
            relayed: ICESDPTests.relayed, mapped: ICESDPTests.mapped, base: ICESDPTests.host, server: Self.server,
            component: 1, rank: 0)
        #expect(gathering.isComplete(at: .milliseconds(1)))
        #expect(gathering.sortedCandidates.map(\.type) == [.relayed])
        #expect(gathering.sortedCandidates.first?.relatedAddress == ICESDPTests.mapped)
    }
}

@Suite("ICE gathering: the TURN server's mapping")
struct RelayMappingTests {
    @Test func anAllocationsMappedAddressIsAServerReflexiveCandidate() {
        var random = CandidateGatheringTests.Counter()
        var gathering = CandidateGathering(
            hosts: [(1, ICESDPTests.host)], stunServers: [CandidateGatheringTests.server], relays: 1,
            isRelayOnly: false, deadline: .milliseconds(3000), generator: &random)
        _ = gathering.start(at: .zero)
        // The Binding request is lost; the allocation's XOR-MAPPED-ADDRESS still gives the mapping.
        gathering.relayAllocated(
            relayed: ICESDPTests.relayed, mapped: ICESDPTests.mapped, base: ICESDPTests.host,
            server: CandidateGatheringTests.server, component: 1, rank: 0)
        gathering.reflexiveFromRelay(
            mapped: ICESDPTests.mapped, base: ICESDPTests.host, server: CandidateGatheringTests.server, component: 1)
        #expect(gathering.sortedCandidates.map(\.type) == [.host, .serverReflexive, .relayed])
        // Found twice (the Binding response comes after all): one candidate.
        gathering.reflexiveFromRelay(
            mapped: ICESDPTests.mapped, base: ICESDPTests.host, server: CandidateGatheringTests.server, component: 1)
        #expect(gathering.sortedCandidates.count == 3)
    }
}
