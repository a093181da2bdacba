import SIPTransport
import STUN
import SwitchboardTesting
import Testing

/// The virtual STUN/TURN server, driven by the project's own STUN and TURN clients over the virtual network,
/// with NATs in the way.
@Suite struct VirtualTURNServerTests {
    static let users = ["alice": "alice-Pa55", "bob": "bob-Pa55"]
    static let serverIP = "198.51.100.9"

    static func ipv4(_ text: String) -> STUNIPAddress {
        STUNIPAddress(bytes: socketAddress(text, 0).addressBytes) ?? .v4(0)
    }

    /// The STUN messages a host sent, decoded, from the records.
    static func messages(from source: SocketAddress, in world: VirtualWorld) -> [STUNMessage] {
        world.network.records.filter { $0.source == source }.compactMap {
            try? STUNReceivedMessage(decoding: $0.bytes).message
        }
    }

    // MARK: Binding

    @Test func aBindingThroughASymmetricNATReturnsTheNATsPublicAddress() throws {
        let world = VirtualWorld(seed: 21)
        let nat = world.network.addNAT(publicIP: "203.0.113.1", inside: ["192.168.1.2"], behavior: .symmetric)
        let server = try VirtualTURNServer(world: world, host: Self.serverIP, users: [:])
        let client = try ScriptedPeer(world: world, host: "192.168.1.2", port: 5000)
        let inbox = DatagramInbox(client)
        var random = SeededRandomNumberGenerator(seed: 1)
        var transaction = STUNBindingTransaction(fingerprint: true, isReliable: false, generator: &random)
        for case .send(let bytes) in transaction.start(at: .zero) { client.send(bytes: bytes, to: server.address) }
        world.advance(by: .milliseconds(10))
        let response = try #require(inbox.all.first)
        let outcome = transaction.receive(response.bytes, at: .milliseconds(10))
        guard case .finished(.success(let mapped, _)) = outcome.first else {
            Issue.record("no success: \(outcome)")
            return
        }
        let outside = try #require(nat.mappings.first?.outside)
        #expect(mapped == STUNTransportAddress(address: Self.ipv4("203.0.113.1"), port: outside.port))
        #expect(mapped.port != 5000)
        #expect(server.bindingRequests == 1)
    }

    @Test func aBindingOverTCPReturnsTheTranslatedSourceOfTheConnection() throws {
        let world = VirtualWorld(seed: 22)
        let nat = world.network.addNAT(publicIP: "203.0.113.1", inside: ["192.168.1.2"], behavior: .symmetric)
        let server = try VirtualTURNServer(world: world, host: Self.serverIP, users: [:], transports: .tcp)
        let connection = try ScriptedConnection(world: world, from: "192.168.1.2", to: server.address)
        var random = SeededRandomNumberGenerator(seed: 2)
        let transaction = STUNBindingTransaction(isReliable: true, generator: &random)
        connection.send(bytes: transaction.requestBytes)
        world.advance(by: .milliseconds(10))
        let response = try STUNReceivedMessage(decoding: connection.takeBytes()).message
        #expect(response.transactionID == transaction.transactionID)
        #expect(response.xorMappedAddress?.socket == nat.mappings.first?.outside)
        #expect(response.xorMappedAddress?.address == Self.ipv4("203.0.113.1"))
    }

    // MARK: Relaying

    @Test func aClientBehindASymmetricNATRelaysToAPeerBehindAnother() throws {
        let world = VirtualWorld(seed: 23)
        world.network.addNAT(publicIP: "203.0.113.1", inside: ["192.168.1.2"], behavior: .symmetric)
        world.network.addNAT(publicIP: "203.0.113.2", inside: ["192.168.2.2"], behavior: .symmetric)
        let server = try VirtualTURNServer(world: world, host: Self.serverIP, users: Self.users)
        let alice = try TURNClientDriver(
            world: world, host: "192.168.1.2", server: server.address, username: "alice", password: "alice-Pa55")
        #expect(alice.allocate())

        // The 401 dance: the first Allocate is challenged with REALM and NONCE, the second (signed) allocated.
        let answers = Self.messages(from: server.address, in: world)
        #expect(answers.count == 2)
        #expect(answers.first?.errorCode?.code == .unauthenticated)
        #expect(answers.first?.realm == "switchboard.test")
        #expect(answers.first?.nonce != nil)
        #expect(answers.last?.messageClass == .successResponse)
        let relayed = try #require(alice.relayedAddress)
        #expect(server.relayedAddresses == [relayed.socket])
        #expect(relayed.address == Self.ipv4(Self.serverIP))
        #expect(alice.mappedAddress?.address == Self.ipv4("203.0.113.1"))
        #expect(server.allocationCount == 1)

        let bob = try ScriptedPeer(world: world, host: "192.168.2.2", port: 6000)
        let bobInbox = DatagramInbox(bob)
        // No permission yet: the relay drops what bob sends.
        bob.send("too early", to: relayed.socket)
        world.advance(by: .milliseconds(10))
        #expect(alice.data.isEmpty)
        #expect(server.droppedWithoutPermission == 1)

        alice.drive { $0.createPermission(for: Self.ipv4("203.0.113.2"), at: $1) }
        #expect(world.run(until: { server.permissionCount == 1 }, within: .seconds(1)))
        bob.send("hello alice", to: relayed.socket)
        world.advance(by: .milliseconds(10))
        #expect(alice.data.map(\.payload) == ["hello alice"])
        let bobSeen = try #require(alice.data.first?.peer)
        #expect(bobSeen.address == Self.ipv4("203.0.113.2"))

        alice.drive { $0.send(Array("hi bob, by Send".utf8), to: bobSeen, at: $1) }
        world.advance(by: .milliseconds(10))
        #expect(bobInbox.texts == ["hi bob, by Send"])
        #expect(bobInbox.sources == [relayed.socket])

        alice.drive { $0.bindChannel(to: bobSeen, at: $1) }
        #expect(world.run(until: { server.channelCount == 1 }, within: .seconds(1)))
        world.advance(by: .milliseconds(10))
        alice.drive { $0.send(Array("hi bob, by channel".utf8), to: bobSeen, at: $1) }
        bob.send("over the channel", to: relayed.socket)
        world.advance(by: .milliseconds(10))
        #expect(bobInbox.texts == ["hi bob, by Send", "hi bob, by channel"])
        #expect(alice.data.map(\.payload) == ["hello alice", "over the channel"])

        // On the wire between alice's NAT and the server, the last datagrams each way were ChannelData.
        let records = world.network.records.filter { !$0.isDropped }
        let up = records.last { $0.insideSource?.host == "192.168.1.2" }
        let down = records.last { $0.source == server.address }
        #expect(up?.bytes.first.map(TURNChannelData.isChannelData) == true)
        #expect(down?.bytes.first.map(TURNChannelData.isChannelData) == true)
        #expect(down?.insideDestination?.host == "192.168.1.2")
        #expect(server.relayedToPeers == 2)
        #expect(server.relayedToClients == 2)
    }

    @Test func twoAllocationsRelayToEachOther() throws {
        let world = VirtualWorld(seed: 24)
        world.network.addNAT(publicIP: "203.0.113.1", inside: ["192.168.1.2"], behavior: .symmetric)
        world.network.addNAT(publicIP: "203.0.113.2", inside: ["192.168.2.2"], behavior: .symmetric)
        let server = try VirtualTURNServer(world: world, host: Self.serverIP, users: Self.users)
        let alice = try TURNClientDriver(
            world: world, host: "192.168.1.2", server: server.address, username: "alice", password: "alice-Pa55")
        let bob = try TURNClientDriver(
            world: world, host: "192.168.2.2", server: server.address, username: "bob", password: "bob-Pa55", seed: 10)
        #expect(alice.allocate() && bob.allocate())
        let (aliceRelayed, bobRelayed) = (try #require(alice.relayedAddress), try #require(bob.relayedAddress))
        #expect(aliceRelayed != bobRelayed)
        #expect(server.relayedAddresses.count == 2)
        alice.drive { $0.send(Array("to bob".utf8), to: bobRelayed, at: $1) }
        bob.drive { $0.send(Array("to alice".utf8), to: aliceRelayed, at: $1) }
        world.advance(by: .milliseconds(50))
        // Each first datagram waited for the other side's permission; the next ones get through.
        alice.drive { $0.send(Array("to bob, again".utf8), to: bobRelayed, at: $1) }
        bob.drive { $0.send(Array("to alice, again".utf8), to: aliceRelayed, at: $1) }
        world.advance(by: .milliseconds(50))
        #expect(alice.data.last?.payload == "to alice, again")
        #expect(alice.data.last?.peer == bobRelayed)
        #expect(bob.data.last?.payload == "to bob, again")
        #expect(bob.data.last?.peer == aliceRelayed)
    }

    // MARK: Lifetimes

    @Test func refreshKeepsAnAllocationAndLifetimeZeroDeletesIt() throws {
        let world = VirtualWorld(seed: 25)
        let server = try VirtualTURNServer(world: world, host: Self.serverIP, users: Self.users)
        let alice = try TURNClientDriver(
            world: world, host: "192.0.2.1", server: server.address, username: "alice", password: "alice-Pa55")
        #expect(alice.allocate())
        alice.drive { $0.refresh(at: $1) }
        #expect(world.run(until: { alice.events.contains(.refreshed(lifetime: .seconds(600))) }, within: .seconds(1)))
        // The client refreshes by itself before 600 s: after 30 minutes the allocation still lives.
        world.advance(by: .seconds(1_800))
        #expect(server.allocationCount == 1)
        #expect(alice.state == .allocated)

        let relayed = try #require(alice.relayedAddress)
        alice.drive { $0.close(at: $1) }
        #expect(world.run(until: { alice.state == .closed }, within: .seconds(1)))
        #expect(server.allocationCount == 0)
        #expect(server.relayedAddresses.isEmpty)
        #expect(server.allocationsMade == 1)
        // The relayed port is closed: nothing listens there any more.
        let peer = try ScriptedPeer(world: world, host: "198.51.100.20", port: 7000)
        peer.send("anyone?", to: relayed.socket)
        world.advance(by: .milliseconds(10))
        #expect(server.relayedToClients == 0)
        #expect(server.droppedWithoutPermission == 0)
    }

    @Test func allocationsAndPermissionsExpireOnTheVirtualClock() throws {
        let world = VirtualWorld(seed: 26)
        let server = try VirtualTURNServer(world: world, host: Self.serverIP, users: Self.users)
        let alice = try TURNClientDriver(
            world: world, host: "192.0.2.1", server: server.address, username: "alice", password: "alice-Pa55")
        let peer = try ScriptedPeer(world: world, host: "198.51.100.20", port: 7000)
        #expect(alice.allocate())
        let relayed = try #require(alice.relayedAddress)
        alice.drive { $0.createPermission(for: Self.ipv4("198.51.100.20"), at: $1) }
        #expect(world.run(until: { server.permissionCount == 1 }, within: .seconds(1)))
        alice.runsTimers = false  // the client goes silent: nothing is refreshed from now on

        world.advance(by: .seconds(298))
        peer.send("at 298 s", to: relayed.socket)
        world.advance(by: .seconds(3))
        peer.send("at 301 s", to: relayed.socket)
        world.advance(by: .milliseconds(10))
        #expect(alice.data.map(\.payload) == ["at 298 s"])
        #expect(server.permissionCount == 0)
        #expect(server.droppedWithoutPermission == 1)

        #expect(server.allocationCount == 1)
        world.advance(by: .seconds(300))
        #expect(server.allocationCount == 0)
        #expect(server.relayedAddresses.isEmpty)
    }

    @Test func aStaleNonceIsAnswered438AndTheClientRetriesWithTheNewOne() throws {
        let world = VirtualWorld(seed: 27)
        let server = try VirtualTURNServer(world: world, host: Self.serverIP, users: Self.users)
        server.nonceLifetime = .seconds(30)
        let alice = try TURNClientDriver(
            world: world, host: "192.0.2.1", server: server.address, username: "alice", password: "alice-Pa55")
        #expect(alice.allocate())
        world.advance(by: .seconds(60))
        alice.drive { $0.createPermission(for: Self.ipv4("198.51.100.20"), at: $1) }
        let ready = TURNClientEvent.permissionReady(Self.ipv4("198.51.100.20"))
        #expect(world.run(until: { alice.events.contains(ready) }, within: .seconds(1)))
        let answers = Self.messages(from: server.address, in: world).filter { $0.method == .createPermission }
        #expect(answers.map { $0.errorCode?.code } == [.staleNonce, nil])
        let nonces = Self.messages(from: server.address, in: world).compactMap(\.nonce)
        #expect(Set(nonces).count == 2)
        #expect(server.permissionCount == 1)
    }

    // MARK: Refusals

    @Test func refusalsCarryTheRFC8656Codes() throws {
        let world = VirtualWorld(seed: 28)
        let server = try VirtualTURNServer(world: world, host: Self.serverIP, users: Self.users)
        let raw = try RawSTUNClient(world: world, host: "192.0.2.1", server: server.address)
        let challenge = try #require(raw.ask(.allocate, [.requestedTransport(.udp)]))
        #expect(challenge.errorCode?.code == .unauthenticated)
        let nonce = try #require(challenge.nonce)

        func signed(_ method: STUNMethod, _ attributes: [STUNAttribute], user: String = "alice", password: String)
            -> STUNMessage?
        {
            raw.ask(method, attributes, user: user, password: password, nonce: nonce)
        }
        #expect(signed(.allocate, [.requestedTransport(.udp)], password: "wrong")?.errorCode?.code == .unauthenticated)
        #expect(signed(.allocate, [], password: "alice-Pa55")?.errorCode?.code == .badRequest)
        #expect(
            signed(.allocate, [.requestedTransport(.tcp)], password: "alice-Pa55")?.errorCode?.code
                == .unsupportedTransportProtocol)
        #expect(signed(.refresh, [], password: "alice-Pa55")?.errorCode?.code == .allocationMismatch)

        let allocate = raw.request(.allocate, [.requestedTransport(.udp)])
        let allocated = try #require(raw.ask(allocate, user: "alice", password: "alice-Pa55", nonce: nonce))
        #expect(allocated.messageClass == .successResponse)
        // A retransmission of the same Allocate gets the same answer; a new one 437.
        let again = try #require(raw.ask(allocate, user: "alice", password: "alice-Pa55", nonce: nonce))
        #expect(again.xorRelayedAddress == allocated.xorRelayedAddress)
        #expect(
            signed(.allocate, [.requestedTransport(.udp)], password: "alice-Pa55")?.errorCode?.code
                == .allocationMismatch)
        // Another user's credentials on this allocation: 441.
        #expect(signed(.refresh, [], user: "bob", password: "bob-Pa55")?.errorCode?.code == .wrongCredentials)
        // A channel number outside 0x4000...0x4FFF: 400.
        let peer = STUNTransportAddress(address: Self.ipv4("198.51.100.20"), port: 7000)
        let badChannel = STUNAttribute(type: .channelNumber, value: [0x50, 0, 0, 0])
        let bind = raw.request(.channelBind, [badChannel])
        let withPeer = STUNMessage(
            .request, .channelBind, transactionID: bind.transactionID,
            attributes: bind.attributes + [.xorPeerAddress(peer, transactionID: bind.transactionID)])
        #expect(raw.ask(withPeer, user: "alice", password: "alice-Pa55", nonce: nonce)?.errorCode?.code == .badRequest)
        #expect(server.allocationCount == 1)
    }

    // MARK: TCP

    @Test func aClientOverTCPRelaysAndItsAllocationEndsWithTheConnection() throws {
        let world = VirtualWorld(seed: 29)
        world.network.addNAT(publicIP: "203.0.113.1", inside: ["192.168.1.2"], behavior: .portPreserving)
        let server = try VirtualTURNServer(world: world, host: Self.serverIP, users: Self.users)
        let alice = try TURNClientDriver(
            world: world, host: "192.168.1.2", server: server.address, username: "alice", password: "alice-Pa55",
            overTCP: true)
        #expect(alice.allocate())
        #expect(world.network.records.filter { $0.kind == .datagram }.isEmpty)
        let relayed = try #require(alice.relayedAddress)
        let peer = try ScriptedPeer(world: world, host: "198.51.100.20", port: 7000)
        let peerInbox = DatagramInbox(peer)
        let peerAddress = try #require(peer.address.stun)
        alice.drive { $0.createPermission(for: peerAddress.address, at: $1) }
        #expect(world.run(until: { server.permissionCount == 1 }, within: .seconds(1)))
        peer.send("odd", to: relayed.socket)  // three bytes: ChannelData over TCP is padded to four
        world.advance(by: .milliseconds(10))
        alice.drive { $0.bindChannel(to: peerAddress, at: $1) }
        #expect(world.run(until: { server.channelCount == 1 }, within: .seconds(1)))
        world.advance(by: .milliseconds(10))
        peer.send("five!", to: relayed.socket)
        alice.drive { $0.send(Array("seven!!".utf8), to: peerAddress, at: $1) }
        world.advance(by: .milliseconds(10))
        #expect(alice.data.map(\.payload) == ["odd", "five!"])
        #expect(peerInbox.texts == ["seven!!"])
        let down = world.network.records.last { $0.source == server.address }
        #expect(down?.kind == .stream)
        #expect(down?.bytes.count == 4 + 8)

        alice.close()
        world.advance(by: .milliseconds(10))
        #expect(server.allocationCount == 0)
    }

    @Test func theServerNeverShowsAPassword() throws {
        let world = VirtualWorld(seed: 30)
        let server = try VirtualTURNServer(world: world, host: Self.serverIP, users: Self.users)
        var dumped = ""
        dump(server, to: &dumped)
        for text in [server.description, String(reflecting: server), dumped] {
            #expect(text.contains("alice"))
            #expect(!text.contains("Pa55"))
        }
    }
}

/// Sends hand-made STUN requests from a scripted peer and reads the answers.
struct RawSTUNClient {
    let world: VirtualWorld
    let peer: ScriptedPeer
    let inbox: DatagramInbox
    let server: SocketAddress
    private let seed = SeedBox()

    init(world: VirtualWorld, host: String, server: SocketAddress) throws {
        self.world = world
        self.server = server
        peer = try ScriptedPeer(world: world, host: host, port: 5000)
        inbox = DatagramInbox(peer)
    }

    /// A request with a fresh transaction ID.
    func request(_ method: STUNMethod, _ attributes: [STUNAttribute]) -> STUNMessage {
        STUNMessage(.request, method, transactionID: seed.nextID(), attributes: attributes)
    }

    /// Sends a new request (signed when a user is given) and returns the answer.
    func ask(
        _ method: STUNMethod, _ attributes: [STUNAttribute], user: String? = nil, password: String = "",
        nonce: String = ""
    ) -> STUNMessage? {
        ask(request(method, attributes), user: user, password: password, nonce: nonce)
    }

    /// Sends `message` (signed with the long-term key when a user is given) and returns the answer.
    func ask(_ message: STUNMessage, user: String? = nil, password: String = "", nonce: String = "") -> STUNMessage? {
        var message = message
        var integrity: STUNIntegrity?
        if let user {
            message.attributes += [.username(user), .realm("switchboard.test"), .nonce(nonce)]
            integrity = STUNKey.longTerm(username: user, realm: "switchboard.test", password: password)
                .map { STUNIntegrity(key: $0) }
        }
        _ = inbox.take()
        peer.send(bytes: message.encoded(integrity: integrity), to: server)
        world.advance(by: .milliseconds(10))
        return inbox.take().last.flatMap { try? STUNReceivedMessage(decoding: $0.bytes).message }
    }
}

/// Transaction IDs for ``RawSTUNClient``, counted up.
final class SeedBox: @unchecked Sendable {
    // @unchecked Sendable: used from the test's one thread only.
    private var next: UInt64 = 1

    func nextID() -> STUNTransactionID {
        next += 1
        return STUNTransactionID(high: 0x5357_4954, low: next)
    }
}
