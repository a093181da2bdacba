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
        if let known = engine.numericHops.destination(of: given, transport: transport) {
            done(known)
            return
        }
        let sip = TransportForm.uri(given, for: transport)
        let resolver = SIPResolver()
        if sip.host.kind != .hostname {
            let destination = (try? resolver.resolveNow(sip))?.first
            engine.numericHops.remember(destination, of: given, transport: transport)
            done(destination)
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

    /// What `resolve` gives at once without resolving: `uri`'s destination when it is a numeric next hop
    /// resolved before (`.some(nil)`: it resolves to none, or it is not a SIP URI); `nil` when it must be
    /// resolved. Callers that have it skip the callback (and the copy of what it carries).
    func known(_ uri: URI, transport: SIPTransport.TransportProtocol?) -> Destination?? {
        guard let given = uri.sipURI else { return .some(nil) }
        return engine.numericHops.destination(of: given, transport: transport)
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

/// The first destinations of the last few numeric next hops, by URI (as written) and transport: a numeric
/// host needs no DNS (RFC 3263 §4.1, §4.2), so its destination follows from those two alone, and a call's
/// INVITE, ACK and BYE mostly go to the same one or two. Bounded; the oldest entry makes room. Loop-confined.
final class NumericHops {
    /// How many next hops are kept.
    static let capacity = 8

    private struct Entry {
        let uri: SIPURI
        let transport: SIPTransport.TransportProtocol?
        let destination: Destination?
    }

    // Loop-confined plain values that call nothing while accessed: no run-time exclusivity checks needed.
    @exclusivity(unchecked) private var entries: [Entry] = []
    @exclusivity(unchecked) private var next = 0

    /// How many next hops are kept now (for tests).
    var count: Int { entries.count }

    /// `uri`'s destination for `transport` when it is kept (`.some(nil)`: it resolves to none).
    func destination(of uri: SIPURI, transport: SIPTransport.TransportProtocol?) -> Destination?? {
        for entry in entries where entry.transport == transport && entry.uri == uri {
            return .some(entry.destination)
        }
        return nil
    }

    /// Keeps what numeric `uri` resolved to for `transport`.
    func remember(_ destination: Destination?, of uri: SIPURI, transport: SIPTransport.TransportProtocol?) {
        let entry = Entry(uri: uri, transport: transport, destination: destination)
        if entries.count < Self.capacity {
            entries.append(entry)
        } else {
            entries[next] = entry
            next = (next + 1) % Self.capacity
        }
    }
}

/// Carries a loop-confined callback through the resolver's task and back to the loop.
final class ResolutionCallback: @unchecked Sendable {
    // @unchecked Sendable: `body` is created on the loop and only ever called back on the loop.
    let body: (Destination?) -> Void
    init(_ body: @escaping (Destination?) -> Void) { self.body = body }
}
