import SIPTransport
import SwitchboardTesting
import Testing

/// NATs in the virtual network behave as RFC 4787 and Linux `masquerade` do.
@Suite struct VirtualNATTests {
    static let publicIP = "203.0.113.1"
    static let insideIP = "192.168.1.2"

    /// A world with one host behind a NAT (port 5000) and three outside endpoints on two hosts.
    struct Setup {
        let world: VirtualWorld
        let nat: VirtualNAT
        let client: ScriptedPeer
        let clientInbox: DatagramInbox
        let a: ScriptedPeer
        let aInbox: DatagramInbox
        let a2: ScriptedPeer
        let b: ScriptedPeer
        let bInbox: DatagramInbox

        init(_ behavior: NATBehavior, seed: UInt64 = 1) throws {
            world = VirtualWorld(seed: seed)
            nat = world.network.addNAT(publicIP: publicIP, inside: [insideIP], behavior: behavior)
            client = try ScriptedPeer(world: world, host: insideIP, port: 5000)
            clientInbox = DatagramInbox(client)
            a = try ScriptedPeer(world: world, host: "198.51.100.1", port: 7000)
            aInbox = DatagramInbox(a)
            a2 = try ScriptedPeer(world: world, host: "198.51.100.1", port: 7001)
            b = try ScriptedPeer(world: world, host: "198.51.100.2", port: 7000)
            bInbox = DatagramInbox(b)
        }
    }

    @Test func aPortPreservingNATKeepsThePortAndAdmitsOnlyTheRemoteItSentTo() throws {
        let s = try Setup(.portPreserving)
        s.client.send("hello a", to: s.a.address)
        s.world.advance(by: .milliseconds(10))
        #expect(s.aInbox.sources == [socketAddress(Self.publicIP, 5000)])

        s.a.send("from a", to: socketAddress(Self.publicIP, 5000))
        s.a2.send("from a, other port", to: socketAddress(Self.publicIP, 5000))
        s.b.send("from b", to: socketAddress(Self.publicIP, 5000))
        s.world.advance(by: .milliseconds(10))
        #expect(s.clientInbox.texts == ["from a"])
        #expect(s.clientInbox.sources == [s.a.address])
        #expect(s.nat.deliveredIn == 1)
        #expect(s.nat.filteredIn == 2)

        // Endpoint-independent mapping: the same public port toward another host.
        s.client.send("hello b", to: s.b.address)
        s.world.advance(by: .milliseconds(10))
        #expect(s.bInbox.sources == [socketAddress(Self.publicIP, 5000)])
        #expect(s.nat.mappings.count == 1)
        #expect(s.nat.mappings.first?.remotes == [s.a.address, s.b.address])
        #expect(s.nat.translatedOut == 2)
    }

    @Test func aPortPreservingNATPicksAnotherPortWhenTheInsidePortIsTaken() throws {
        let world = VirtualWorld(seed: 2)
        world.network.addNAT(
            publicIP: Self.publicIP, inside: ["192.168.1.2", "192.168.1.3"], behavior: .portPreserving)
        let first = try ScriptedPeer(world: world, host: "192.168.1.2", port: 5000)
        let second = try ScriptedPeer(world: world, host: "192.168.1.3", port: 5000)
        let server = try ScriptedPeer(world: world, host: "198.51.100.1", port: 7000)
        let inbox = DatagramInbox(server)
        first.send("1", to: server.address)
        second.send("2", to: server.address)
        world.advance(by: .milliseconds(10))
        #expect(inbox.sources.count == 2)
        #expect(inbox.sources.first == socketAddress(Self.publicIP, 5000))
        #expect(inbox.sources.last?.host == Self.publicIP)
        #expect(inbox.sources.last?.port != 5000)
    }

    @Test func aSymmetricNATGivesANewPortPerDestination() throws {
        let s = try Setup(.symmetric)
        s.client.send("1", to: s.a.address)
        s.client.send("2", to: s.a2.address)
        s.client.send("3", to: s.b.address)
        s.client.send("4", to: s.a.address)
        s.world.advance(by: .milliseconds(10))
        let toA = s.aInbox.sources
        #expect(toA.count == 2)
        #expect(toA[0] == toA[1])
        let ports = Set(s.nat.mappings.map(\.outside.port))
        #expect(ports.count == 3)
        #expect(!ports.contains(5000))
        #expect(s.nat.mappingsCreated == 3)
        #expect(s.nat.mapping(from: s.client.address, to: s.b.address)?.outside == s.bInbox.sources.first)

        // Filtering: only the exact remote of each mapping gets back in through it.
        let toAPort = toA[0]
        s.b.send("b through a's mapping", to: toAPort)
        s.a.send("a", to: toAPort)
        s.world.advance(by: .milliseconds(10))
        #expect(s.clientInbox.texts == ["a"])
        #expect(s.nat.filteredIn == 1)
    }

    @Test func addressDependentFilteringAdmitsAnyPortOfAHostItSentTo() throws {
        let s = try Setup(NATBehavior(mapping: .endpointIndependent, filtering: .addressDependent))
        s.client.send("1", to: s.a.address)
        s.world.advance(by: .milliseconds(10))
        let outside = try #require(s.aInbox.sources.first)
        s.a2.send("other port, same host", to: outside)
        s.b.send("other host", to: outside)
        s.world.advance(by: .milliseconds(10))
        #expect(s.clientInbox.texts == ["other port, same host"])
    }

    @Test func inboundWithoutAMappingIsDroppedAndRecorded() throws {
        let s = try Setup(.portPreserving)
        s.a.send("unsolicited", to: socketAddress(Self.publicIP, 5000))
        s.world.advance(by: .milliseconds(10))
        #expect(s.clientInbox.count == 0)
        #expect(s.nat.filteredIn == 1)
        #expect(s.nat.deliveredIn == 0)
        let record = try #require(s.world.network.records.last)
        #expect(record.destination == socketAddress(Self.publicIP, 5000))
        #expect(record.isDropped)
        #expect(record.insideDestination == nil)
    }

    @Test func aMappingExpiresAfterItsLifetimeWithoutOutboundTraffic() throws {
        let behavior = NATBehavior(
            mapping: .endpointIndependent, filtering: .addressAndPortDependent, mappingLifetime: .seconds(30),
            preservesPorts: true)
        let s = try Setup(behavior)
        let outside = socketAddress(Self.publicIP, 5000)
        s.client.send("open", to: s.a.address)
        s.world.advance(by: .seconds(20))
        s.a.send("at 20 s", to: outside)
        s.world.advance(by: .seconds(5))
        #expect(s.clientInbox.texts == ["at 20 s"])
        // Inbound traffic does not refresh it: 30 s after the last outbound datagram it is gone.
        s.world.advance(by: .seconds(6))
        #expect(s.nat.mappings.isEmpty)
        s.a.send("at 31 s", to: outside)
        s.world.advance(by: .seconds(1))
        #expect(s.clientInbox.texts == ["at 20 s"])
        #expect(s.nat.filteredIn == 1)

        // Outbound traffic opens it again, and keeps it alive.
        s.client.send("again", to: s.a.address)
        s.world.advance(by: .seconds(25))
        s.client.send("keep", to: s.a.address)
        s.world.advance(by: .seconds(25))
        s.a.send("50 s after it reopened", to: outside)
        s.world.advance(by: .seconds(1))
        #expect(s.clientInbox.texts == ["at 20 s", "50 s after it reopened"])
    }

    @Test func twoPartiesBehindTheirOwnNATsPunchAHole() throws {
        let world = VirtualWorld(seed: 3)
        let natA = world.network.addNAT(publicIP: "203.0.113.1", inside: ["192.168.1.2"], behavior: .portPreserving)
        let natB = world.network.addNAT(publicIP: "203.0.113.2", inside: ["192.168.2.2"], behavior: .portPreserving)
        let alice = try ScriptedPeer(world: world, host: "192.168.1.2", port: 5000)
        let bob = try ScriptedPeer(world: world, host: "192.168.2.2", port: 6000)
        let (aliceInbox, bobInbox) = (DatagramInbox(alice), DatagramInbox(bob))
        let alicePublic = socketAddress("203.0.113.1", 5000)
        let bobPublic = socketAddress("203.0.113.2", 6000)

        alice.send("1 from alice", to: bobPublic)  // opens NAT A, dropped at NAT B
        world.advance(by: .milliseconds(10))
        #expect(bobInbox.count == 0)
        #expect(natB.filteredIn == 1)
        bob.send("2 from bob", to: alicePublic)  // opens NAT B, admitted by NAT A
        alice.send("3 from alice", to: bobPublic)
        world.advance(by: .milliseconds(10))
        #expect(aliceInbox.texts == ["2 from bob"])
        #expect(aliceInbox.sources == [bobPublic])
        #expect(bobInbox.texts == ["3 from alice"])
        #expect(bobInbox.sources == [alicePublic])
        #expect(natA.deliveredIn == 1 && natB.deliveredIn == 1)

        // The record of a datagram through both NATs names all four addresses.
        let record = try #require(world.network.records.last)
        #expect(record.insideSource == alice.address)
        #expect(record.source == alicePublic)
        #expect(record.destination == bobPublic)
        #expect(record.insideDestination == bob.address)
        #expect(
            record.description.contains("192.168.1.2:5000 as 203.0.113.1:5000 -> 203.0.113.2:6000 to 192.168.2.2:6000"))
    }

    @Test func symmetricNATsOnBothSidesKeepEachOtherOut() throws {
        let world = VirtualWorld(seed: 4)
        world.network.addNAT(publicIP: "203.0.113.1", inside: ["192.168.1.2"], behavior: .symmetric)
        world.network.addNAT(publicIP: "203.0.113.2", inside: ["192.168.2.2"], behavior: .symmetric)
        let alice = try ScriptedPeer(world: world, host: "192.168.1.2", port: 5000)
        let bob = try ScriptedPeer(world: world, host: "192.168.2.2", port: 6000)
        let server = try ScriptedPeer(world: world, host: "198.51.100.1", port: 3478)
        let (aliceInbox, bobInbox, serverInbox) = (DatagramInbox(alice), DatagramInbox(bob), DatagramInbox(server))
        // Each learns its reflexive address from the server, then tries it on the other: no luck.
        alice.send("a", to: server.address)
        bob.send("b", to: server.address)
        world.advance(by: .milliseconds(10))
        let (aliceSeen, bobSeen) = (serverInbox.sources[0], serverInbox.sources[1])
        for _ in 0..<3 {
            alice.send("to bob", to: bobSeen)
            bob.send("to alice", to: aliceSeen)
            world.advance(by: .milliseconds(10))
        }
        #expect(aliceInbox.count == 0)
        #expect(bobInbox.count == 0)
    }

    @Test func hostsBehindTheSameNATTalkDirectlyAndHairpinningIsDropped() throws {
        let world = VirtualWorld(seed: 5)
        let nat = world.network.addNAT(
            publicIP: Self.publicIP, inside: ["192.168.1.2", "192.168.1.3"], behavior: .portPreserving)
        let one = try ScriptedPeer(world: world, host: "192.168.1.2", port: 5000)
        let two = try ScriptedPeer(world: world, host: "192.168.1.3", port: 5000)
        let server = try ScriptedPeer(world: world, host: "198.51.100.1", port: 7000)
        let twoInbox = DatagramInbox(two)
        one.send("lan", to: two.address)
        world.advance(by: .milliseconds(10))
        #expect(twoInbox.sources == [one.address])
        #expect(nat.translatedOut == 0)

        two.send("open", to: server.address)
        one.send("hairpin", to: socketAddress(Self.publicIP, 5000))
        world.advance(by: .milliseconds(10))
        #expect(twoInbox.count == 1)
        #expect(nat.hairpinDropped == 1)
    }

    @Test func aPrivateAddressIsReachableOnlyFromItsOwnLAN() throws {
        let world = VirtualWorld(seed: 8)
        let nat = world.network.addNAT(
            publicIP: Self.publicIP, inside: [Self.insideIP, "192.168.1.3"], behavior: .portPreserving)
        let client = try ScriptedPeer(world: world, host: Self.insideIP, port: 5000)
        let inbox = DatagramInbox(client)
        let neighbour = try ScriptedPeer(world: world, host: "192.168.1.3", port: 5000)
        let outsider = try ScriptedPeer(world: world, host: "198.51.100.1", port: 7000)
        // The client talks to the outsider first, so a mapping exists; the outsider still cannot reach the
        // private address itself, only the public one.
        client.send("out", to: outsider.address)
        world.advance(by: .milliseconds(10))
        outsider.send("to the private address", to: client.address)
        neighbour.send("from the LAN", to: client.address)
        world.advance(by: .milliseconds(10))
        #expect(inbox.texts == ["from the LAN"])
        #expect(nat.unroutableDropped == 1)

        let listener = try ScriptedListener(world: world, host: Self.insideIP, port: 5060)
        let fromOutside = try ScriptedConnection(world: world, from: "198.51.100.1", to: listener.address)
        #expect(listener.accept(within: .milliseconds(10)) == nil)
        #expect(fromOutside.isClosed)
        #expect(nat.unroutableDropped == 2)
        _ = try ScriptedConnection(world: world, from: "192.168.1.3", to: listener.address)
        #expect(listener.accept(within: .milliseconds(10)) != nil)
    }

    @Test func aNetworkThatKeepsNoRecordsStillCarriesDatagrams() throws {
        let world = VirtualWorld(seed: 9)
        world.network.recordLimit = 0
        let a = try ScriptedPeer(world: world, host: "198.51.100.1", port: 7000)
        let b = try ScriptedPeer(world: world, host: "198.51.100.2", port: 7000)
        let inbox = DatagramInbox(b)
        for text in ["1", "2", "3"] { a.send(text, to: b.address) }
        world.advance(by: .milliseconds(10))
        #expect(inbox.texts == ["1", "2", "3"])
        #expect(world.network.records.isEmpty)
    }

    @Test func streamsOpenedFromInsideAreTranslatedAndStreamsToThePublicAddressRefused() throws {
        let world = VirtualWorld(seed: 6)
        let nat = world.network.addNAT(publicIP: Self.publicIP, inside: [Self.insideIP], behavior: .symmetric)
        let listener = try ScriptedListener(world: world, host: "198.51.100.1", port: 5060)
        let client = try ScriptedConnection(world: world, from: Self.insideIP, to: listener.address)
        let server = try #require(listener.accept(within: .seconds(1)))
        let seen = try #require(server.remoteAddress)
        #expect(seen.host == Self.publicIP)
        #expect(nat.mappings.map(\.kind) == [.stream])
        #expect(nat.mappings.first?.outside == seen)
        #expect(nat.mappings.first?.inside == client.localAddress)

        client.send("OPTIONS sip:x SIP/2.0\r\nContent-Length: 0\r\n\r\n")
        #expect(server.message(within: .seconds(1))?.hasPrefix("OPTIONS") == true)
        server.send("SIP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n")
        #expect(client.message(within: .seconds(1))?.hasPrefix("SIP/2.0 200") == true)
        let streams = world.network.records.filter { $0.kind == .stream }
        #expect(streams.count == 2)
        #expect(streams[0].source == seen && streams[0].insideSource == client.localAddress)
        #expect(streams[1].destination == seen && streams[1].insideDestination == client.localAddress)
        #expect(nat.translatedOut == 1 && nat.deliveredIn == 1)

        client.close()
        world.advance(by: .milliseconds(10))
        #expect(nat.mappings.isEmpty)

        // No port forwarding: a connection to the public address is refused, even with something bound there.
        let squatter = try ScriptedListener(world: world, host: Self.publicIP, port: seen.port)
        let outsider = try ScriptedConnection(world: world, from: "198.51.100.2", to: seen)
        #expect(squatter.accept(within: .milliseconds(10)) == nil)
        #expect(outsider.isClosed)
        // Nor does a connection from inside to the NAT's own public address loop back.
        let hairpin = try ScriptedConnection(world: world, from: Self.insideIP, to: seen)
        #expect(squatter.accept(within: .milliseconds(10)) == nil)
        #expect(hairpin.isClosed)
        #expect(nat.hairpinDropped == 1)

        // A reset of the inside host breaks both ends, the far one included.
        let second = try ScriptedConnection(world: world, from: Self.insideIP, to: listener.address)
        let accepted = try #require(listener.accept(within: .seconds(1)))
        world.network.resetConnections(of: Self.insideIP)
        world.advance(by: .milliseconds(10))
        #expect(second.isClosed)
        #expect(accepted.isClosed)
        #expect(nat.mappings.isEmpty)
    }

    @Test func blockUDPDropsOneHostsDatagramsToAnotherUntilUnblocked() throws {
        let world = VirtualWorld(seed: 7)
        world.network.addNAT(publicIP: Self.publicIP, inside: [Self.insideIP], behavior: .portPreserving)
        let client = try ScriptedPeer(world: world, host: Self.insideIP, port: 5000)
        let turn = try ScriptedPeer(world: world, host: "198.51.100.9", port: 3478)
        let other = try ScriptedPeer(world: world, host: "198.51.100.9", port: 5349)
        let (turnInbox, otherInbox) = (DatagramInbox(turn), DatagramInbox(other))

        world.network.blockUDP(from: Self.insideIP, to: "198.51.100.9", port: 3478)
        client.send("1", to: turn.address)
        client.send("2", to: other.address)
        world.advance(by: .milliseconds(10))
        #expect(turnInbox.count == 0)
        #expect(otherInbox.count == 1)
        #expect(world.network.blockedDatagrams == 1)

        // A rule on the NAT's public address matches the translated source; without a port, every port.
        world.network.unblockUDP(from: Self.insideIP, to: "198.51.100.9", port: 3478)
        world.network.blockUDP(from: Self.publicIP, to: "198.51.100.9")
        client.send("3", to: turn.address)
        client.send("4", to: other.address)
        world.advance(by: .milliseconds(10))
        #expect(turnInbox.count == 0)
        #expect(otherInbox.count == 1)
        #expect(world.network.blockedDatagrams == 3)

        world.network.unblockUDP(from: Self.publicIP, to: "198.51.100.9")
        client.send("5", to: turn.address)
        world.advance(by: .milliseconds(10))
        #expect(turnInbox.texts == ["5"])
    }

    @Test func theSameSeedGivesTheSameMappingsAndRecords() throws {
        func run(seed: UInt64) throws -> (records: [NetworkRecord], mappings: [NATMapping]) {
            let world = VirtualWorld(seed: seed)
            world.network.setConditions(LinkConditions(latency: .milliseconds(5), jitter: .milliseconds(5), loss: 0.2))
            let nat = world.network.addNAT(publicIP: Self.publicIP, inside: [Self.insideIP], behavior: .symmetric)
            let client = try ScriptedPeer(world: world, host: Self.insideIP, port: 5000)
            let servers = try (1...4).map { try ScriptedPeer(world: world, host: "198.51.100.\($0)", port: 7000) }
            let inboxes = servers.map(DatagramInbox.init)
            for round in 0..<5 {
                for server in servers { client.send("round \(round)", to: server.address) }
                world.advance(by: .milliseconds(20))
                for (server, inbox) in zip(servers, inboxes) {
                    for arrival in inbox.take() { server.send(bytes: arrival.bytes, to: arrival.source) }
                }
                world.advance(by: .milliseconds(20))
            }
            return (world.network.records, nat.mappings)
        }
        let first = try run(seed: 11)
        let second = try run(seed: 11)
        let other = try run(seed: 12)
        #expect(first.records.count > 30)
        #expect(first.records == second.records)
        #expect(first.mappings == second.mappings)
        #expect(first.mappings.map(\.outside) != other.mappings.map(\.outside))
    }
}
