public import SIPTransport

/// One datagram or stream segment that crossed the virtual network.
///
/// Across a NAT, `source` and `destination` are the addresses on the wire between the routers (what a capture
/// on the public side shows); `insideSource` and `insideDestination` name the hosts behind the NATs.
public struct NetworkRecord: Sendable, Hashable, CustomStringConvertible {
    /// How it crossed.
    public enum Kind: String, Sendable, Hashable {
        case datagram
        case stream
    }

    /// Virtual time since the network was made, when it was sent.
    public var time: Duration
    public var kind: Kind
    /// Where it came from as the far end sees it: after a NAT translated the sender's address, the NAT's public
    /// address and mapped port.
    public var source: SocketAddress
    /// The address the sender sent it to (a NAT's public address for a host behind one).
    public var destination: SocketAddress
    /// Whether the link dropped it, or a NAT (no live mapping, filtering, hairpinning) or a `blockUDP` rule did.
    public var isDropped: Bool
    /// The sender's own address when a NAT translated it (`source` is then the translated one); `nil` when no
    /// NAT did.
    public var insideSource: SocketAddress?
    /// The receiver's own address when a NAT forwarded it inward from `destination`; set when a datagram
    /// arrives (after the link's latency), at once for a stream segment. `nil` when no NAT forwarded it.
    public var insideDestination: SocketAddress?
    public var bytes: [UInt8]

    init(
        time: Duration, kind: Kind, source: SocketAddress, destination: SocketAddress, bytes: [UInt8],
        isDropped: Bool, insideSource: SocketAddress? = nil, insideDestination: SocketAddress? = nil
    ) {
        self.time = time
        self.kind = kind
        self.source = source
        self.destination = destination
        self.bytes = bytes
        self.isDropped = isDropped
        self.insideSource = insideSource
        self.insideDestination = insideDestination
    }

    /// Whether it looks like SIP text (a start line beginning with a letter), not RTP, RTCP or a keep-alive.
    public var isSIP: Bool {
        guard let first = bytes.first else { return false }
        return (first >= 0x41 && first <= 0x5A) || (first >= 0x61 && first <= 0x7A)
    }

    /// `[12.0 ms] datagram 10.0.0.1:5060 -> 10.0.0.2:5060` and the bytes as text; across a NAT
    /// `192.168.1.2:5060 as 203.0.113.1:5060 -> 203.0.113.2:40000 to 192.168.2.2:5060`.
    public var description: String {
        let ms = Double(time.components.seconds) * 1000 + Double(time.components.attoseconds) / 1e15
        let mark = isDropped ? " (dropped)" : ""
        let text = String(decoding: bytes, as: UTF8.self)
        let from = insideSource.map { "\($0) as \(source)" } ?? "\(source)"
        let to = insideDestination.map { "\(destination) to \($0)" } ?? "\(destination)"
        return "[\(ms) ms] \(kind.rawValue) \(from) -> \(to)\(mark)\n\(text)"
    }
}
