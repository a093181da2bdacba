import Foundation
import SIPTransport
import STUN
import SwitchboardTesting
import Synchronization
import Testing

@testable import Switchboard

/// ICE through NATs in virtual time: a server-reflexive pair through port-preserving NATs, a relay between two
/// symmetric NATs (and no audio without ICE), TURN over TCP when UDP to the server is blocked, relay-only,
/// 20% loss, and a restart onto another path. Signalling goes through a public proxy, as a PBX's would.
@Suite("ICE calls across NATs", .serialized)
struct ICENATTests {
    static let proxyHost = "192.0.2.5"
    static let turnHost = "192.0.2.10"
    static let aliceHost = "10.0.0.1"
    static let bobHost = "10.0.1.2"

    /// A world with a STUN/TURN server, a proxy, and each side behind its NAT (or not).
    struct Setup {
        let world: VirtualWorld
        let turn: VirtualTURNServer
        let proxy: NATProxy
        let pair: ICEPair

        init(
            seed: UInt64 = 11, alice aliceNAT: NATBehavior?, bob bobNAT: NATBehavior?,
            alice configureAlice: (inout CallProviderConfiguration) -> Void,
            bob configureBob: (inout CallProviderConfiguration) -> Void
        ) async throws {
            let world = VirtualWorld(seed: seed)
            self.world = world
            turn = try VirtualTURNServer(world: world, host: ICENATTests.turnHost, users: ["alice": "pw", "bob": "pw"])
            proxy = try NATProxy(world: world, host: ICENATTests.proxyHost)
            if let aliceNAT {
                world.network.addNAT(publicIP: "203.0.113.1", inside: [ICENATTests.aliceHost], behavior: aliceNAT)
            }
            if let bobNAT {
                world.network.addNAT(publicIP: "198.51.100.1", inside: [ICENATTests.bobHost], behavior: bobNAT)
            }
            pair = try ICEPair(
                hosts: (ICENATTests.aliceHost, ICENATTests.bobHost), world: world,
                target: "sip:bob@\(ICENATTests.proxyHost)",
                alice: {
                    $0.accounts = [Account(addressOfRecord: "sip:alice@\(ICENATTests.proxyHost)")]
                    configureAlice(&$0)
                },
                bob: {
                    $0.accounts = [
                        Account(
                            addressOfRecord: "sip:bob@\(ICENATTests.proxyHost)",
                            registrar: "sip:\(ICENATTests.proxyHost)")
                    ]
                    configureBob(&$0)
                })
            let bob = pair.bob
            let account = "sip:bob@\(ICENATTests.proxyHost)"
            let registered = world.run(
                until: {
                    if case .registered = bob.registrationState(for: account) { return true }
                    return false
                }, within: .seconds(5))
            #expect(registered)
        }
    }

    static func stun() -> [STUNServer] { [STUNServer(host: turnHost)] }

    /// The virtual network delivers a datagram addressed to a NATed host's private address from outside; real
    /// private networks are not routable from the other's. These rules stand in for that routing: nothing from
    /// one NAT's public address reaches the other side's host (directly or through its NAT). Only a relay (or
    /// a proxy) connects them then, as two symmetric NATs allow anyway.
    static func isolatePrivateNetworks(_ network: VirtualNetwork) {
        network.blockUDP(from: "203.0.113.1", to: bobHost)
        network.blockUDP(from: "198.51.100.1", to: aliceHost)
    }

    static func turn(_ user: String, _ transport: TURNServer.Transport = .udp) -> [TURNServer] {
        [TURNServer(host: turnHost, transport: transport, username: user, password: "pw")]
    }

    @Test func serverReflexivePairsThroughPortPreservingNATs() async throws {
        let setup = try await Setup(
            alice: .portPreserving, bob: .portPreserving, alice: { $0.stunServers = Self.stun() },
            bob: { $0.stunServers = Self.stun() })
        let pair = setup.pair
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        let aliceCall = try #require(pair.connectedCall(pair.aliceDelegate, alice))
        let bobCall = try #require(pair.connectedCall(pair.bobDelegate, bob))
        #expect(aliceCall.mediaPath?.candidateType == .serverReflexive)
        #expect(bobCall.mediaPath?.candidateType == .serverReflexive)
        #expect(aliceCall.mediaPath?.localAddress.hasPrefix("203.0.113.1:") == true)
        #expect(bobCall.mediaPath?.remoteAddress == aliceCall.mediaPath?.localAddress)
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
        #expect(pair.sipTrace.contains("typ srflx raddr 10.0.0.1"))
    }

    @Test func twoSymmetricNATsTalkThroughTheRelay() async throws {
        let setup = try await Setup(
            alice: .symmetric, bob: .symmetric,
            alice: {
                $0.stunServers = Self.stun()
                $0.turnServers = Self.turn("alice")
            },
            bob: {
                $0.stunServers = Self.stun()
                $0.turnServers = Self.turn("bob")
            })
        Self.isolatePrivateNetworks(setup.world.network)
        let pair = setup.pair
        defer { pair.close() }
        let start = setup.world.loop.elapsedTime
        let (alice, bob) = try await pair.connect()
        #expect(pair.connectedCall(pair.aliceDelegate, alice)?.mediaPath?.candidateType == .relayed)
        #expect(pair.connectedCall(pair.bobDelegate, bob)?.mediaPath?.candidateType == .relayed)
        // The STUN server is the TURN server (one address and port): gathering still completes at once with
        // both the server-reflexive and the relayed candidate, well before its deadline.
        let invite = setup.world.network.records.first {
            $0.isSIP && $0.bytes.starts(with: Array("INVITE ".utf8))
        }
        #expect(invite.map { $0.time - start < .milliseconds(500) } == true)
        let offered = pair.attributeValues("candidate", from: "203.0.113.1")
        #expect(offered.contains { $0.contains("typ srflx") } && offered.contains { $0.contains("typ relay") })
        let before = setup.turn.relayedToPeers + setup.turn.relayedToClients
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
        // The RTP of those two seconds went through the relay, 50 packets a second each way: out of a client's
        // allocation to the peer, or from the peer into one to its client (both, when each side uses its own).
        #expect(setup.turn.relayedToPeers + setup.turn.relayedToClients - before >= 200)
        #expect(setup.turn.channelCount >= 1)
    }

    @Test func withoutICETheSameNATsCarryNoAudio() async throws {
        let setup = try await Setup(
            alice: .symmetric, bob: .symmetric, alice: { $0.icePolicy = .off }, bob: { $0.icePolicy = .off })
        Self.isolatePrivateNetworks(setup.world.network)
        let pair = setup.pair
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        pair.world.advance(by: .seconds(2))
        #expect(pair.alice.call(with: alice)?.quality?.packetsReceived ?? 0 == 0)
        #expect(pair.bob.call(with: bob)?.quality?.packetsReceived ?? 0 == 0)
        #expect(!pair.hearsBothWays)
    }

    @Test func turnOverTCPWhenUDPToTheServerIsBlocked() async throws {
        let setup = try await Setup(
            alice: .symmetric, bob: .symmetric,
            alice: {
                $0.stunServers = Self.stun()
                $0.turnServers = Self.turn("alice", .tcp)
            },
            bob: { $0.turnServers = Self.turn("bob") })
        setup.world.network.blockUDP(from: Self.aliceHost, to: Self.turnHost)
        let pair = setup.pair
        defer { pair.close() }
        let (alice, _) = try await pair.connect()
        #expect(pair.connectedCall(pair.aliceDelegate, alice)?.mediaPath?.candidateType == .relayed)
        pair.world.network.clearRecords()
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
        let overTCP = pair.world.network.records.filter {
            $0.kind == .stream && $0.destination.host == Self.turnHost
        }
        #expect(overTCP.count >= 50)
        #expect(setup.world.network.blockedDatagrams > 0)
    }

    @Test func relayOnlyOffersAndPairsOnlyTheRelay() async throws {
        let setup = try await Setup(
            alice: nil, bob: nil,
            alice: {
                $0.icePolicy = .relayOnly
                $0.turnServers = Self.turn("alice")
            }, bob: { $0.icePolicy = .on })
        let pair = setup.pair
        defer { pair.close() }
        let (alice, _) = try await pair.connect()
        let offered = pair.attributeValues("candidate", from: Self.aliceHost)
        #expect(!offered.isEmpty && offered.allSatisfy { $0.contains("typ relay") })
        #expect(!pair.sipTrace.contains("c=IN IP4 10.0.0.1\r\nt="))
        let path = try #require(pair.connectedCall(pair.aliceDelegate, alice)?.mediaPath)
        #expect(path.candidateType == .relayed)
        #expect(path.localAddress.hasPrefix(Self.turnHost + ":"))
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
    }

    /// Each component's first four Allocate requests are lost (two components: rtcp-mux is offered, not
    /// required): at a 100 ms RTO the fifth goes at 1.5 s and the relay is in the offer, within the 3 s of
    /// gathering (at RFC 8489's 500 ms, the fifth would go at 7.5 s).
    @Test func anAllocateLostFourTimesStillMakesTheOffer() async throws {
        let setup = try await Setup(
            alice: nil, bob: nil,
            alice: {
                $0.icePolicy = .relayOnly
                $0.turnServers = Self.turn("alice")
            }, bob: { $0.icePolicy = .on })
        let pair = setup.pair
        defer { pair.close() }
        let lost = Mutex(0)
        pair.world.network.dropDatagrams { view in
            guard let message = try? STUNReceivedMessage(decoding: view.bytes),
                message.message.method == .allocate, message.message.messageClass == .request
            else { return false }
            return lost.withLock { count in
                count += 1
                return count <= 8
            }
        }
        let (alice, _) = try await pair.connect()
        #expect(lost.withLock { $0 } >= 9)
        let offered = pair.attributeValues("candidate", from: Self.aliceHost)
        #expect(!offered.isEmpty && offered.allSatisfy { $0.contains("typ relay") })
        #expect(pair.connectedCall(pair.aliceDelegate, alice)?.mediaPath?.candidateType == .relayed)
    }

    @Test(arguments: [31, 32, 33] as [UInt64])
    func twentyPercentLossEachWayStillCompletes(seed: UInt64) async throws {
        let setup = try await Setup(
            seed: seed, alice: .portPreserving, bob: .portPreserving,
            alice: {
                $0.stunServers = Self.stun()
                $0.turnServers = Self.turn("alice")
            },
            bob: {
                $0.stunServers = Self.stun()
                $0.turnServers = Self.turn("bob")
            })
        let pair = setup.pair
        defer { pair.close() }
        setup.world.network.setConditions(LinkConditions(latency: .milliseconds(20), loss: 0.2))
        let answeredAt = setup.world.loop.elapsedTime
        let (alice, bob) = try await pair.connect(within: 30)
        #expect(setup.world.loop.elapsedTime - answeredAt < .seconds(15))
        #expect(pair.connectedCall(pair.aliceDelegate, alice)?.mediaPath != nil)
        #expect(pair.connectedCall(pair.bobDelegate, bob)?.mediaPath != nil)
        pair.world.advance(by: .seconds(3))
        #expect((pair.alice.call(with: alice)?.quality?.packetsReceived ?? 0) > 50)
        #expect((pair.bob.call(with: bob)?.quality?.packetsReceived ?? 0) > 50)
    }

    @Test func aRestartMovesTheCallToTheRelayAndSaysSo() async throws {
        let setup = try await Setup(
            alice: nil, bob: nil, alice: { $0.turnServers = Self.turn("alice") },
            bob: { $0.turnServers = Self.turn("bob") })
        let pair = setup.pair
        defer { pair.close() }
        let (alice, _) = try await pair.connect()
        #expect(pair.connectedCall(pair.aliceDelegate, alice)?.mediaPath?.candidateType == .host)
        // The direct path breaks (a network change); a restart finds the relay.
        setup.world.network.blockUDP(from: Self.aliceHost, to: Self.bobHost)
        setup.world.network.blockUDP(from: Self.bobHost, to: Self.aliceHost)
        pair.alice.restartICE(for: alice)
        let update = await pair.aliceDelegate.wait(seconds: 10) { $0.update?.mediaPath }
        #expect(update?.candidateType == .relayed)
        #expect(pair.alice.call(with: alice)?.mediaPath?.candidateType == .relayed)
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
    }
}

@Suite("ICE mismatch (RFC 8839 §4.4.1.3)", .serialized)
struct ICEMismatchTests {
    @Test func aRewrittenOfferIsAnsweredWithIceMismatchAndAPlainCall() async throws {
        let world = VirtualWorld(seed: 13)
        let proxy = try NATProxy(world: world, host: ICENATTests.proxyHost, rewritesConnection: true)
        let pair = try ICEPair(
            hosts: (ICENATTests.aliceHost, ICENATTests.bobHost), world: world,
            target: "sip:bob@\(ICENATTests.proxyHost)",
            alice: {
                $0.icePolicy = .on
                $0.accounts = [Account(addressOfRecord: "sip:alice@\(ICENATTests.proxyHost)")]
            },
            bob: {
                $0.icePolicy = .on
                $0.accounts = [
                    Account(
                        addressOfRecord: "sip:bob@\(ICENATTests.proxyHost)", registrar: "sip:\(ICENATTests.proxyHost)")
                ]
            })
        defer { pair.close() }
        _ = proxy
        let bobAccount = "sip:bob@\(ICENATTests.proxyHost)"
        #expect(
            world.run(
                until: {
                    if case .registered = pair.bob.registrationState(for: bobAccount) { return true }
                    return false
                }, within: .seconds(5)))
        let (alice, bob) = try await pair.connect()
        // Bob's answer says the offer's c= is none of its candidates, and carries no other ICE attribute; both
        // sides run a plain call (latching finds the real addresses).
        #expect(pair.sipTrace.contains("a=ice-mismatch"))
        #expect(pair.attributeValues("ice-ufrag", from: ICENATTests.bobHost).isEmpty)
        #expect(pair.connectedCall(pair.aliceDelegate, alice)?.mediaPath == nil)
        #expect(pair.connectedCall(pair.bobDelegate, bob)?.mediaPath == nil)
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
    }
}
