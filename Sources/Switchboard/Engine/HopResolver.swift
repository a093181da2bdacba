import SIPCore
import SIPMessage
import SIPTransport

/// Finds where the drivers' requests go: a URI's first destination (RFC 3263) in the transport's form, and
/// a UDP listener to send from. Loop-confined.
struct HopResolver {
    let engine: Engine

    /// Resolves `uri` to its first destination: at once for numeric hosts (so requests and ACKs keep their
    /// order), off the loop through RFC 3263 for names. `transport` (the account's or the dialog's) asks for
    /// its flow through `TransportForm`, unless the URI names one.
    func resolve(
        _ uri: URI, transport: SIPTransport.TransportProtocol? = nil, _ done: @escaping (Destination?) -> Void
    ) {
        guard let given = uri.sipURI else {
            done(nil)
            return
        }
        let sip = TransportForm.uri(given, for: transport)
        let resolver = SIPResolver()
        if sip.host.kind != .hostname {
            done((try? resolver.resolveNow(sip))?.first)
            return
        }
        let target = sip
        let engine = self.engine
        let box = ResolutionCallback(done)
        Task.detached {
            let destination = (try? await resolver.resolve(target))?.first
            engine.execute { box.body(destination) }
        }
    }

    /// A UDP listener is needed to send at all (requests leave from it); streams connect on demand.
    func ensureListening(for destination: Destination) {
        let family = destination.address.family
        guard engine.transport.listeningAddress(.udp, family: family) == nil else { return }
        let wildcard = SocketAddress(ip: family == .ipv4 ? "0.0.0.0" : "::", port: 0) ?? .loopback()
        _ = try? engine.transport.listen(.udp, on: wildcard)
    }

    /// The local address the transport uses toward `destination` (loopback when it has none).
    func localAddress(toward destination: Destination) -> SocketAddress {
        engine.transport.localAddress(for: destination) ?? .loopback()
    }

    /// The host part for a local address (its IP, which always parses as one).
    static func host(_ address: SocketAddress) -> SIPHost {
        if let host = SIPHost(address.host) { return host }
        return .loopbackIPv4
    }
}

/// Carries a loop-confined callback through the resolver's task and back to the loop.
final class ResolutionCallback: @unchecked Sendable {
    // @unchecked Sendable: `body` is created on the loop and only ever called back on the loop.
    let body: (Destination?) -> Void
    init(_ body: @escaping (Destination?) -> Void) { self.body = body }
}
