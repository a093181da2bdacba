public import SIPTransport

/// One datagram or stream segment that crossed the virtual network.
public struct NetworkRecord: Sendable, Hashable, CustomStringConvertible {
    /// How it crossed.
    public enum Kind: String, Sendable, Hashable {
        case datagram
        case stream
    }

    /// Virtual time since the network was made, when it was sent.
    public var time: Duration
    public var kind: Kind
    public var source: SocketAddress
    public var destination: SocketAddress
    public var bytes: [UInt8]
    /// Whether the link dropped it.
    public var isDropped: Bool

    /// Whether it looks like SIP text (a start line beginning with a letter), not RTP, RTCP or a keep-alive.
    public var isSIP: Bool {
        guard let first = bytes.first else { return false }
        return (first >= 0x41 && first <= 0x5A) || (first >= 0x61 && first <= 0x7A)
    }

    public var description: String {
        let ms = Double(time.components.seconds) * 1000 + Double(time.components.attoseconds) / 1e15
        let mark = isDropped ? " (dropped)" : ""
        let text = String(decoding: bytes, as: UTF8.self)
        return "[\(ms) ms] \(kind.rawValue) \(source) -> \(destination)\(mark)\n\(text)"
    }
}
