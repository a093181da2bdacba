import SIPMessage
import SwitchboardTesting
import Testing

@testable import SIPTransport

/// A TCP flow's keep-alive (RFC 5626 §4.4.1: CRLFCRLF pings, CRLF pongs) and its idle timeout, in the
/// transport layer over the virtual network: what must stay open is watched for many intervals of virtual
/// time, so the checks hold on a busy machine as on an idle one.
@Suite struct VirtualStreamFlowTests {
    /// A client on 10.0.0.1 with `configuration` and a server listening for TCP on 10.0.0.2:5060.
    static func pair(seed: UInt64, client configuration: TransportConfiguration) throws -> (
        world: VirtualWorld, client: SIPTransportLayer, server: SIPTransportLayer, address: SocketAddress
    ) {
        let world = VirtualWorld(seed: seed)
        let client = world.network.makeTransportLayer(host: "10.0.0.1", configuration: configuration)
        let server = world.network.makeTransportLayer(host: "10.0.0.2")
        let address = try #require(SocketAddress(ip: "10.0.0.2", port: 5060))
        _ = try world.loop.withLoop { () throws(TransportError) in try server.listen(.tcp, on: address) }
        return (world, client, server, address)
    }

    /// The client's TCP flow to `destination`, opened by an OPTIONS sent over it.
    static func openFlow(
        _ client: SIPTransportLayer, to destination: Destination, loop: VirtualEventLoop, branch: String
    ) throws -> FlowID? {
        try loop.withLoop {
            let via = try #require(client.makeVia(for: destination, branch: branch))
            let request = try optionsRequest(
                to: "sip:bob@\(destination.address.host)", via: via, callID: "flow-\(branch)")
            client.send(request: request, to: destination, completion: nil)
        }
        loop.advance(by: .milliseconds(50))
        return loop.withLoop { client.flow(to: destination) }
    }

    @Test func keepAlivePongsKeepTheFlowAndSilenceKillsIt() throws {
        var configuration = TransportConfiguration()
        configuration.pongTimeout = .milliseconds(300)
        let (world, client, server, serverAddress) = try Self.pair(seed: 5, client: configuration)
        var events: [FlowEvent] = []
        world.loop.withLoop { client.onFlowEvent = { events.append($0) } }

        // A peer that answers pings: the flow stays open for 50 intervals.
        let destination = Destination(transport: .tcp, address: serverAddress)
        let flow = try #require(try Self.openFlow(client, to: destination, loop: world.loop, branch: "z9hG4bK-ka"))
        world.loop.withLoop { client.setKeepAlive(flow: flow, interval: .milliseconds(100)) }
        world.advance(by: .seconds(5))
        #expect(world.loop.withLoop { client.isOpen(flow) })
        #expect(events.isEmpty)

        // A peer that reads but never answers pings: the flow dies once a pong is overdue.
        let silent = try ScriptedListener(world: world, host: "10.0.0.3", port: 5060)
        let quiet = Destination(transport: .tcp, address: silent.address)
        let quietFlow = try #require(try Self.openFlow(client, to: quiet, loop: world.loop, branch: "z9hG4bK-ka2"))
        let peer = try #require(silent.accept(within: .seconds(1)))
        world.loop.withLoop { client.setKeepAlive(flow: quietFlow, interval: .milliseconds(100)) }
        world.advance(by: .seconds(1))
        #expect(events.contains { if case .dead(let dead) = $0 { dead == quietFlow } else { false } })
        #expect(String(decoding: peer.takeBytes(), as: UTF8.self).contains("\r\n\r\n"))
        #expect(world.loop.withLoop { client.isOpen(flow) })
        withExtendedLifetime(server) {}
    }

    @Test func idleConnectionsCloseUnlessHeld() throws {
        var configuration = TransportConfiguration()
        configuration.idleTimeout = .milliseconds(200)
        // Only the client has a short idle timeout: the server must not close the connection first.
        let (world, client, server, serverAddress) = try Self.pair(seed: 6, client: configuration)
        let destination = Destination(transport: .tcp, address: serverAddress)
        let flow = try #require(try Self.openFlow(client, to: destination, loop: world.loop, branch: "z9hG4bK-idle"))
        world.loop.withLoop { client.retain(flow: flow) }
        world.advance(by: .seconds(3))
        #expect(world.loop.withLoop { client.isOpen(flow) })
        world.loop.withLoop { client.release(flow: flow) }
        world.advance(by: .seconds(1))
        #expect(!world.loop.withLoop { client.isOpen(flow) })
        withExtendedLifetime(server) {}
    }
}
