import Foundation
import SIPMessage
import Synchronization
import Testing

@testable import SIPTransport

@Suite("Transports on loopback", .serialized)
struct TransportTests {
    /// A server and a client layer on one loop, listening on `transport` at `address`.
    func pair(
        _ transport: TransportProtocol, _ address: SocketAddress, configuration: TransportConfiguration = .init(),
        serverConfiguration: TransportConfiguration? = nil
    ) async throws -> (LoopFixture, SIPTransportLayer, SIPTransportLayer, SocketAddress, Inbox, Inbox) {
        let fixture = try LoopFixture()
        let server = SIPTransportLayer(loop: fixture.loop, configuration: serverConfiguration ?? configuration)
        let client = SIPTransportLayer(loop: fixture.loop, configuration: configuration)
        let serverInbox = Inbox()
        let clientInbox = Inbox()
        let bound = try await onLoop(fixture.loop) {
            serverInbox.attach(to: server)
            clientInbox.attach(to: client)
            let bound = try server.listen(transport, on: address)
            try client.listen(transport, on: address.with(port: 0))
            if transport != .udp { try client.listen(.udp, on: address.with(port: 0)) }
            return bound
        }
        return (fixture, server, client, bound, serverInbox, clientInbox)
    }

    @Test(arguments: [TransportProtocol.udp, .tcp], [SocketAddress.loopback(), .loopbackIPv6()])
    func requestAndResponse(_ transport: TransportProtocol, _ address: SocketAddress) async throws {
        let (fixture, server, client, bound, serverInbox, clientInbox) = try await pair(transport, address)
        let destination = Destination(transport: transport, address: bound)
        let outcome = Outcome()
        try await onLoop(fixture.loop) {
            let via = try #require(client.makeVia(for: destination, branch: "z9hG4bK-test-1"))
            #expect(via.host.text == address.host)
            let request = try options(to: "sip:bob@\(bound.uriHost):\(bound.port)", via: via)
            client.send(request: request, to: destination, completion: outcome.completion)
        }
        #expect(await outcome.wait() == .some(nil))
        let received = await serverInbox.wait(for: 1)
        let incoming = try #require(received.first)
        #expect(incoming.transport == transport)
        let request = try #require(incoming.message.request)
        let top = try #require(try request.topVia)
        #expect(top.received == address.host)
        #expect(top.rport == .value(incoming.source.port))
        try await onLoop(fixture.loop) {
            server.send(response: response(to: request), toRequest: incoming, completion: nil)
        }
        let answers = await clientInbox.wait(for: 1)
        #expect(answers.first?.message.response?.statusCode == 200)
        if transport == .tcp {
            // The response came back over the connection the request used.
            #expect(answers.first?.flow != nil)
            let counts = try await onLoop(fixture.loop) { (client.connectionCount, server.connectionCount) }
            #expect(counts.0 == 1 && counts.1 == 1)
        }
        try await fixture.stop([server, client])
    }

    @Test func tcpConnectionsAreReused() async throws {
        let (fixture, server, client, bound, serverInbox, _) = try await pair(.tcp, .loopback())
        let destination = Destination(transport: .tcp, address: bound)
        try await onLoop(fixture.loop) {
            for i in 0..<5 {
                let via = try #require(client.makeVia(for: destination, branch: "z9hG4bK-reuse-\(i)"))
                client.send(request: try options(to: "sip:bob@127.0.0.1", via: via), to: destination)
            }
        }
        let received = await serverInbox.wait(for: 5)
        #expect(received.count == 5)
        #expect(Set(received.compactMap(\.flow)).count == 1)
        let opened = try await onLoop(fixture.loop) { client.statistics.connectionsOpened }
        #expect(opened == 1)
        try await fixture.stop([server, client])
    }

    @Test func refusedConnectionIsATransportError() async throws {
        let fixture = try LoopFixture()
        let client = SIPTransportLayer(loop: fixture.loop)
        let outcome = Outcome()
        // A port nothing listens on: bind and close a socket to find one.
        let unused = try await onLoop(fixture.loop) { () -> SocketAddress in
            let probe = SIPTransportLayer(loop: fixture.loop)
            let address = try probe.listen(.tcp, on: .loopback())
            probe.shutdown()
            return address
        }
        try await onLoop(fixture.loop) {
            try client.listen(.udp, on: .loopback())
            let destination = Destination(transport: .tcp, address: unused)
            let via = try #require(client.makeVia(for: destination, branch: "z9hG4bK-refused"))
            client.send(
                request: try options(to: "sip:x@127.0.0.1", via: via), to: destination, completion: outcome.completion)
        }
        let result = await outcome.wait()
        #expect(result??.code == .connectionRefused)
        try await fixture.stop([client])
    }

    /// A Via names the address its request leaves from, request after request, as the family of the
    /// destination changes (the layer keeps the latest host it wrote).
    @Test func eachViaNamesTheAddressItsRequestLeavesFrom() async throws {
        let fixture = try LoopFixture()
        let layer = SIPTransportLayer(loop: fixture.loop)
        try await onLoop(fixture.loop) {
            let v4 = try layer.listen(.udp, on: .loopback())
            let v6 = try layer.listen(.udp, on: .loopbackIPv6())
            let toV4 = Destination(transport: .udp, address: .loopback(port: 5060))
            let toV6 = Destination(transport: .udp, address: .loopbackIPv6(port: 5060))
            for (i, (destination, local)) in [(toV4, v4), (toV6, v6), (toV6, v6), (toV4, v4)].enumerated() {
                let via = try #require(layer.makeVia(for: destination, branch: "z9hG4bK-family-\(i)"))
                #expect(via.host.text == local.host)
                #expect(via.port == local.port)
            }
        }
        try await fixture.stop([layer])
    }

    /// `stopListening(at:)` closes the UDP and TCP listeners on one address (and only those): the port can be
    /// bound again at once, and the layer no longer names it.
    @Test func stopListeningFreesTheAddress() async throws {
        let fixture = try LoopFixture()
        let layer = SIPTransportLayer(loop: fixture.loop)
        try await onLoop(fixture.loop) {
            let address = try Self.listenBelowEphemeralPorts(layer)
            let other = try layer.listen(.udp, on: .loopback())
            layer.stopListening(at: address)
            #expect(layer.listeningAddress(.tcp) == nil)
            #expect(layer.listeningAddress(.udp) == other)
            let again = try layer.listen(.udp, on: address)
            try layer.listen(.tcp, on: address)
            #expect(again == address)
        }
        try await fixture.stop([layer])
    }

    /// Listens on UDP and TCP at one port below Linux's ephemeral range (32768 and up), so that no socket
    /// another test binds to port 0 can take the port while this test has released it; and below the RTP
    /// ranges (20000 and up) that benchmarks running beside the tests fill with thousands of sockets.
    private static func listenBelowEphemeralPorts(_ layer: SIPTransportLayer) throws -> SocketAddress {
        for port: UInt16 in 11_000..<11_400 {
            guard let address = try? layer.listen(.udp, on: .loopback(port: port)) else { continue }
            if (try? layer.listen(.tcp, on: address)) != nil { return address }
            layer.stopListening(at: address)
        }
        throw NoFreePort()
    }

    private struct NoFreePort: Error {}

    /// Whether `check` holds within 30 s, asked every 10 ms: a liveness guard for what the loop does on its own
    /// time (a connection opening, an idle one closing), not a timing check, so a busy machine only waits longer.
    private static func eventually(_ check: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if try await check() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try await check()
    }

    @Test func largeUDPRequestsMoveToTCP() async throws {
        let fixture = try LoopFixture()
        let server = SIPTransportLayer(loop: fixture.loop)
        let client = SIPTransportLayer(loop: fixture.loop)
        let inbox = Inbox()
        let bound = try await onLoop(fixture.loop) { () -> SocketAddress in
            inbox.attach(to: server)
            let address = try server.listen(.udp, on: .loopback())
            try server.listen(.tcp, on: address)
            try client.listen(.udp, on: .loopback())
            try client.listen(.tcp, on: .loopback())
            return address
        }
        try await onLoop(fixture.loop) {
            let destination = Destination(transport: .udp, address: bound)
            let via = try #require(client.makeVia(for: destination, branch: "z9hG4bK-big"))
            let big = String(repeating: "x", count: 2000)
            client.send(request: try options(to: "sip:bob@127.0.0.1", via: via, body: big), to: destination)
        }
        let received = await inbox.wait(for: 1)
        let incoming = try #require(received.first)
        #expect(incoming.transport == .tcp)
        #expect(try incoming.message.request?.topVia?.transport == "TCP")
        try await fixture.stop([server, client])
    }

    @Test func oversizedDatagramGets513() async throws {
        var configuration = TransportConfiguration()
        configuration.parserLimits.maximumMessageSize = 1000
        let (fixture, server, client, bound, serverInbox, clientInbox) = try await pair(
            .udp, .loopback(), configuration: configuration)
        try await onLoop(fixture.loop) {
            let destination = Destination(transport: .udp, address: bound)
            var big = try options(
                to: "sip:bob@127.0.0.1", via: try #require(client.makeVia(for: destination, branch: "z9hG4bK-513")))
            big.headerFields.append(
                name: try #require(SIPField.Name("X-Padding")), value: String(repeating: "p", count: 1500))
            // Bypass the client's own switch to TCP: there is no TCP listener, so it stays UDP.
            client.send(request: big, to: destination)
        }
        let answers = await clientInbox.wait(for: 1)
        #expect(answers.first?.message.response?.statusCode == 513)
        #expect(await serverInbox.wait(for: 1, timeout: .milliseconds(200)).isEmpty)
        try await fixture.stop([server, client])
    }

    /// Over real sockets and timers; that pongs keep a flow open is checked in virtual time
    /// (SwitchboardTestingTests' VirtualStreamFlowTests), where no sleep stands in for the intervals.
    @Test func keepAliveWithoutPongsKillsTheFlow() async throws {
        var configuration = TransportConfiguration()
        configuration.pongTimeout = .milliseconds(300)
        let (fixture, server, client, _, _, clientInbox) = try await pair(
            .tcp, .loopback(), configuration: configuration)
        // A peer that reads but never answers pings: a raw TCP listener.
        let silent = try await onLoop(fixture.loop) { () -> (Int32, SocketAddress) in
            let fd = try Socket.tcpListen(bind: .loopback())
            return (fd, try #require(Socket.localAddress(fd)))
        }
        let quietDestination = Destination(transport: .tcp, address: silent.1)
        try await onLoop(fixture.loop) {
            let via = try #require(client.makeVia(for: quietDestination, branch: "z9hG4bK-ka2"))
            client.send(request: try options(to: "sip:bob@127.0.0.1", via: via), to: quietDestination)
        }
        #expect(
            try await Self.eventually { try await onLoop(fixture.loop) { client.flow(to: quietDestination) != nil } })
        let quietFlow = try await onLoop(fixture.loop) { try #require(client.flow(to: quietDestination)) }
        try await onLoop(fixture.loop) { client.setKeepAlive(flow: quietFlow, interval: .milliseconds(100)) }
        let event = await clientInbox.waitForEvent {
            if case .dead(let f) = $0 { return f == quietFlow }
            return false
        }
        #expect(event != nil)
        closeDescriptor(silent.0)
        try await fixture.stop([server, client])
    }

    /// Over real sockets and timers; that a held connection outlives the timeout is checked in virtual time
    /// (VirtualStreamFlowTests).
    @Test func idleConnectionsClose() async throws {
        var configuration = TransportConfiguration()
        configuration.idleTimeout = .milliseconds(200)
        // Only the client has a short idle timeout: the server must not close the connection first.
        let (fixture, server, client, bound, serverInbox, _) = try await pair(
            .tcp, .loopback(), configuration: configuration, serverConfiguration: TransportConfiguration())
        let destination = Destination(transport: .tcp, address: bound)
        // The flow is named as the request goes out: on a busy machine it may be idle long enough to close
        // before the test could look it up later.
        let flow = try await onLoop(fixture.loop) {
            let via = try #require(client.makeVia(for: destination, branch: "z9hG4bK-idle"))
            client.send(request: try options(to: "sip:bob@127.0.0.1", via: via), to: destination)
            return try #require(client.flow(to: destination))
        }
        #expect(await serverInbox.wait(for: 1).count == 1)
        #expect(try await Self.eventually { try await onLoop(fixture.loop) { !client.isOpen(flow) } })
        try await fixture.stop([server, client])
    }

    @Test func viaUsesTheRouteAddressNotAGuessedInterface() async throws {
        let fixture = try LoopFixture()
        let layer = SIPTransportLayer(loop: fixture.loop)
        let via = try await onLoop(fixture.loop) { () -> Via? in
            try layer.listen(.udp, on: SocketAddress(ip: "0.0.0.0", port: 0) ?? .loopback())
            return layer.makeVia(for: Destination(transport: .udp, address: .loopback(port: 5060)), branch: "z9hG4bKx")
        }
        #expect(via?.host.text == "127.0.0.1")
        #expect(via?.rport == .requested)
        try await fixture.stop([layer])
    }
}

@Suite("Event loop timers")
struct EventLoopTimerTests {
    /// Timers near and far (beyond the heap's horizon, kept in buckets) fire in deadline order, and a
    /// cancelled far timer never fires; the same with room for many timers reserved before the start.
    @Test(arguments: [0, 4_096])
    func farAndNearTimersFireInOrder(reserved: Int) throws {
        let loop = try EventLoop(name: "timer-test")
        loop.reserveTimerCapacity(reserved)
        loop.start()
        defer { loop.stop() }
        let fired = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            loop.scheduleTimer(after: .milliseconds(1600)) {
                fired.withLock { $0.append(3) }
                done.signal()
            }
            let cancelled = loop.scheduleTimer(after: .milliseconds(1500)) { fired.withLock { $0.append(99) } }
            loop.scheduleTimer(after: .milliseconds(1300)) { fired.withLock { $0.append(2) } }
            loop.scheduleTimer(after: .milliseconds(20)) {
                fired.withLock { $0.append(1) }
                loop.cancelTimer(cancelled)
            }
        }
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(fired.withLock { $0 } == [1, 2, 3])
    }
}
