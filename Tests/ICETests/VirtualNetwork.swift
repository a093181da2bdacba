import ICE
import STUN

/// One side of a simulated call: an ICE agent, or the small lite peer of the tests.
protocol SimulatedPeer {
    mutating func receive(
        _ bytes: [UInt8], on base: STUNTransportAddress, from source: STUNTransportAddress, at now: STUNInstant
    ) -> [ICEAgentAction]
    mutating func advance(to now: STUNInstant) -> [ICEAgentAction]
}

extension ICEAgent: SimulatedPeer {}

/// A network of two endpoints in virtual time: LANs, NATs (endpoint-independent port-preserving mapping, or
/// address-and-port-dependent "symmetric" mapping; both filter inbound by address and port), relays that forward
/// to their owner, delays and seeded loss.
struct VirtualNetwork {
    enum NATKind {
        /// The public port is the private port, for every destination.
        case portPreserving
        /// A new public port per destination; only replies from that destination come in.
        case symmetric
    }

    struct NAT {
        var publicIP: UInt32
        var kind: NATKind
        /// (private address, destination or nil for endpoint-independent) → public port.
        var mappings: [MappingKey: UInt16] = [:]
        /// Public port → private address.
        var reverse: [UInt16: STUNTransportAddress] = [:]
        /// (public port, remote) pairs allowed in.
        var permissions: Set<Permission> = []
        var nextPort: UInt16 = 50_000
    }

    struct MappingKey: Hashable {
        var inside: STUNTransportAddress
        var destination: STUNTransportAddress?
    }

    struct Permission: Hashable {
        var port: UInt16
        var remote: STUNTransportAddress
    }

    /// Endpoint index → the NAT it sits behind (nil: public).
    var natOf: [Int: Int] = [:]
    var nats: [NAT] = []
    /// Host address → endpoint.
    var hosts: [STUNTransportAddress: Int] = [:]
    /// Relayed address → endpoint (the relay forwards everything to it, with the relayed address as the base).
    var relays: [STUNTransportAddress: Int] = [:]
    var lanDelay: Duration = .milliseconds(1)
    var wanDelay: Duration = .milliseconds(20)
    /// Probability (0...1) of dropping each datagram.
    var loss: Double = 0
    /// Endpoints whose outgoing datagrams are all dropped.
    var silenced: Set<Int> = []
    var random = SplitMix64(seed: 99)
    var dropped = 0

    mutating func addNAT(publicIP: UInt32, kind: NATKind) -> Int {
        nats.append(NAT(publicIP: publicIP, kind: kind))
        return nats.count - 1
    }

    /// The public address `inside` is seen from at `destination` (creating the mapping and the permission).
    mutating func translate(_ inside: STUNTransportAddress, nat index: Int, to destination: STUNTransportAddress)
        -> STUNTransportAddress
    {
        var nat = nats[index]
        let key = MappingKey(inside: inside, destination: nat.kind == .symmetric ? destination : nil)
        let port: UInt16
        if let existing = nat.mappings[key] {
            port = existing
        } else {
            if nat.kind == .portPreserving {
                port = inside.port
            } else {
                port = nat.nextPort
                nat.nextPort += 1
            }
            nat.mappings[key] = port
            nat.reverse[port] = inside
        }
        nat.permissions.insert(Permission(port: port, remote: destination))
        nats[index] = nat
        return STUNTransportAddress(address: .v4(nat.publicIP), port: port)
    }

    /// Where a datagram sent by `sender` from `base` to `destination` arrives: the endpoint, the base it arrives
    /// on, the source it appears from, and the delay; nil if it is dropped.
    mutating func route(from sender: Int, base: STUNTransportAddress, to destination: STUNTransportAddress)
        -> (endpoint: Int, base: STUNTransportAddress, source: STUNTransportAddress, delay: Duration)?
    {
        guard !silenced.contains(sender) else { return nil }
        if loss > 0, Double(random.next() % 1_000_000) / 1_000_000 < loss {
            dropped += 1
            return nil
        }
        var source = base
        let senderNAT = relays[base] == nil ? natOf[sender] : nil
        if let receiver = hosts[destination], natOf[receiver] == senderNAT {
            // Same LAN (or both public).
            return (receiver, destination, source, lanDelay)
        }
        let delay = wanDelay
        if let senderNAT { source = translate(base, nat: senderNAT, to: destination) }
        if let owner = relays[destination] { return (owner, destination, source, delay) }
        if let receiver = hosts[destination], natOf[receiver] == nil { return (receiver, destination, source, delay) }
        for (index, nat) in nats.enumerated() where STUNIPAddress.v4(nat.publicIP) == destination.address {
            guard let inside = nat.reverse[destination.port],
                nat.permissions.contains(Permission(port: destination.port, remote: source)),
                let receiver = hosts[inside], natOf[receiver] == index
            else { return nil }
            return (receiver, inside, source, delay)
        }
        return nil
    }
}

/// Two peers on a ``VirtualNetwork``: datagrams and timers in time order, every action recorded.
struct Simulation<A: SimulatedPeer, B: SimulatedPeer> {
    struct Datagram {
        var at: STUNInstant
        var sequence: Int
        var endpoint: Int
        var bytes: [UInt8]
        var base: STUNTransportAddress
        var source: STUNTransportAddress
    }

    var a: A
    var b: B
    var network: VirtualNetwork
    var now = STUNInstant.zero
    var timers: [STUNInstant?] = [nil, nil]
    var queue: [Datagram] = []
    var sequence = 0
    var events: [(at: STUNInstant, endpoint: Int, event: ICEEvent)] = []
    var sends = [0, 0]
    /// When each endpoint last received a Binding success response.
    var lastSuccessReceived: [STUNInstant?] = [nil, nil]
    /// Binding requests with USE-CANDIDATE each endpoint sent.
    var nominationsSent = [0, 0]
    /// When each endpoint sent them.
    var nominationTimes: [[STUNInstant]] = [[], []]
    /// Loses every Binding request with USE-CANDIDATE.
    var dropsNominations = false

    init(a: A, b: B, network: VirtualNetwork) {
        self.a = a
        self.b = b
        self.network = network
    }

    mutating func apply(_ actions: [ICEAgentAction], from endpoint: Int) {
        for action in actions {
            switch action {
            case .send(let bytes, let base, let destination):
                sends[endpoint] += 1
                if let message = try? STUNReceivedMessage(decoding: bytes), message.message.hasUseCandidate {
                    nominationsSent[endpoint] += 1
                    nominationTimes[endpoint].append(now)
                    if dropsNominations { continue }
                }
                guard let route = network.route(from: endpoint, base: base, to: destination) else { continue }
                sequence += 1
                queue.append(
                    Datagram(
                        at: now + route.delay, sequence: sequence, endpoint: route.endpoint, bytes: bytes,
                        base: route.base, source: route.source))
            case .armTimer(let at): timers[endpoint] = at
            case .event(let event): events.append((now, endpoint, event))
            }
        }
    }

    /// Runs until `end` or until `stop` holds after a step.
    mutating func run(until end: STUNInstant, stop: (Self) -> Bool = { _ in false }) {
        while true {
            let nextDatagram = queue.indices.min {
                (queue[$0].at, queue[$0].sequence) < (queue[$1].at, queue[$1].sequence)
            }
            var next: (at: STUNInstant, timer: Int?)?
            if let index = nextDatagram { next = (queue[index].at, nil) }
            for endpoint in 0..<2 {
                if let at = timers[endpoint], next.map({ at < $0.at }) ?? true { next = (at, endpoint) }
            }
            guard let step = next, step.at <= end else {
                now = max(now, end)
                break
            }
            now = step.at
            if let endpoint = step.timer {
                timers[endpoint] = nil
                apply(endpoint == 0 ? a.advance(to: now) : b.advance(to: now), from: endpoint)
            } else if let index = nextDatagram {
                let datagram = queue.remove(at: index)
                if let message = try? STUNReceivedMessage(decoding: datagram.bytes),
                    message.message.messageClass == .successResponse
                {
                    lastSuccessReceived[datagram.endpoint] = now
                }
                let actions =
                    datagram.endpoint == 0
                    ? a.receive(datagram.bytes, on: datagram.base, from: datagram.source, at: now)
                    : b.receive(datagram.bytes, on: datagram.base, from: datagram.source, at: now)
                apply(actions, from: datagram.endpoint)
            }
            if stop(self) { break }
        }
    }

    func selected(_ endpoint: Int) -> [ICEPairInfo] {
        events.compactMap {
            guard $0.endpoint == endpoint, case .selected(let pair) = $0.event else { return nil }
            return pair
        }
    }

    func firstTime(_ endpoint: Int, where match: (ICEEvent) -> Bool) -> STUNInstant? {
        events.first { $0.endpoint == endpoint && match($0.event) }?.at
    }

    func count(_ endpoint: Int, where match: (ICEEvent) -> Bool) -> Int {
        events.count { $0.endpoint == endpoint && match($0.event) }
    }
}
