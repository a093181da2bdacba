import SIPMessage
import SIPTransport
import STUN

/// The STUN and TURN servers of a call as addresses: numeric hosts at once, names through the resolver off
/// the loop (A/AAAA: each server names its port), the result posted back to the loop. A name that does not
/// resolve is left out.
enum ICEServerResolution {
    /// Calls `done` on the loop with the servers' addresses (at once when every host is numeric).
    static func resolve(
        _ settings: ICESettings, engine: Engine,
        _ done: @escaping ([STUNTransportAddress], [ICEPlan.Relay]) -> Void
    ) {
        let hosts = Set(settings.stunServers.map(\.host) + settings.turnServers.map(\.host))
        let names = hosts.filter { SocketAddress(ip: $0, port: 0) == nil }
        guard !names.isEmpty else {
            let (stun, relays) = finish(settings, [:])
            done(stun, relays)
            return
        }
        let box = ServerCallback(done)
        Task.detached {
            var found: [String: SocketAddress] = [:]
            for name in names {
                guard let uri = try? SIPURI("sip:\(name):1;transport=udp"),
                    let destination = try? await SIPResolver().resolve(uri).first
                else { continue }
                found[name] = destination.address
            }
            let resolved = found
            engine.execute {
                let (stun, relays) = finish(settings, resolved)
                box.body(stun, relays)
            }
        }
    }

    /// The servers with their addresses, from the numeric hosts and the names found.
    private static func finish(_ settings: ICESettings, _ names: [String: SocketAddress])
        -> ([STUNTransportAddress], [ICEPlan.Relay])
    {
        func address(_ host: String, _ port: UInt16) -> SocketAddress? {
            SocketAddress(ip: host, port: port) ?? names[host]?.with(port: port)
        }
        let stun = settings.stunServers.compactMap { server in
            address(server.host, server.port).flatMap(STUNTransportAddress.init)
        }
        let relays = settings.turnServers.compactMap { server in
            address(server.host, server.port).map { ICEPlan.Relay(server: server, address: $0) }
        }
        return (stun, relays)
    }
}

/// Carries a loop-confined callback through the resolver's task and back to the loop.
private final class ServerCallback: @unchecked Sendable {
    // @unchecked Sendable: `body` is created on the loop and only ever called back on the loop.
    let body: ([STUNTransportAddress], [ICEPlan.Relay]) -> Void
    init(_ body: @escaping ([STUNTransportAddress], [ICEPlan.Relay]) -> Void) { self.body = body }
}
