/// Symmetric RTP (RFC 4961) behind NAT: send to the address the other side's packets come from, learnt
/// from the first packet that authenticates, instead of the address its SDP gave (often a private one).
///
/// Sans-I/O and generic over the socket layer's address type (IPv4 and IPv6 alike). Feed it only packets
/// that passed SRTP authentication (or, for plain RTP, decoded as RTP of a negotiated payload type from the
/// expected source): an attacker without the keys cannot move the stream. After latching, packets from
/// other addresses are refused unless the latched address has been silent for ``relatchAfter`` (the other
/// side's NAT binding changed), when the new address takes over, or they come from the signalled address
/// itself, which takes over at once (unless the latch never moves: ``relatchAfter`` `nil`). The first
/// packet may have been a stale one (a late packet of the port's last call, from a peer that never heard
/// the hang-up), and the SDP's own address is where media goes without latching. Use one latch for RTP and
/// one for RTCP when they do not share a port.
///
/// Inlinable, so that a driver's module specialises it for its address type with the session.
public struct SymmetricRTPLatch<Address: Hashable & Sendable>: Sendable {
    /// What to do with an authenticated packet.
    public enum Decision: Hashable, Sendable {
        /// It came from the latched address: accept it.
        case accept
        /// It is the first authenticated packet, or its address replaced a silent one: accept it and send to
        /// `address` from now on.
        case latched(Address)
        /// It came from another address while the latched one is alive: drop it.
        case reject
    }

    /// The address the SDP gave, where we send until a packet arrives.
    @inlinable
    public var signalledAddress: Address? { signalled }
    /// The learnt address, once latched.
    @inlinable
    public var latchedAddress: Address? { latched }
    /// How long the latched address must be silent before another may take over; `nil` never re-latches.
    @inlinable
    public var relatchAfter: Duration? {
        get { relatchNanoseconds == Self.none ? nil : .nanoseconds(relatchNanoseconds) }
        set { relatchNanoseconds = Self.encode(newValue) }
    }
    /// Packets refused because they came from another address.
    public var rejectedPackets: Int { Int(rejectedCount) }
    /// How often the latch moved after the first time.
    public var relatches: Int { Int(relatchCount) }

    // Kept compact (every stream has two latches): `none` stands for nil, and the counters wrap.
    @usableFromInline static var none: Int64 { .min }
    /// `relatchAfter` as stored: whole nanoseconds, negative durations as zero, `none` for nil.
    @inlinable
    static func encode(_ relatchAfter: Duration?) -> Int64 {
        relatchAfter.map { max($0, .zero).nanoseconds } ?? none
    }
    @usableFromInline var signalled: Address?
    @usableFromInline var latched: Address?
    @usableFromInline var relatchNanoseconds: Int64
    @usableFromInline var lastAcceptedNanoseconds: Int64
    @usableFromInline var rejectedCount: UInt32
    @usableFromInline var relatchCount: UInt32

    @inlinable
    var lastAccepted: MediaInstant? {
        get { lastAcceptedNanoseconds == Self.none ? nil : MediaInstant(nanoseconds: lastAcceptedNanoseconds) }
        set { lastAcceptedNanoseconds = newValue?.nanoseconds ?? Self.none }
    }

    /// - Parameters:
    ///   - signalledAddress: the address from the SDP (`nil` for none, e.g. c=0.0.0.0 hold).
    ///   - relatchAfter: the silence after which another address may take over, 2 s by default.
    @inlinable
    public init(signalledAddress: Address?, relatchAfter: Duration? = .seconds(2)) {
        self.init(signalledAddress: signalledAddress, relatchNanoseconds: Self.encode(relatchAfter))
    }

    /// A latch with ``relatchAfter`` given as ``encode(_:)`` makes it.
    @inlinable
    init(signalledAddress: Address?, relatchNanoseconds: Int64) {
        signalled = signalledAddress
        latched = nil
        self.relatchNanoseconds = relatchNanoseconds
        lastAcceptedNanoseconds = Self.none
        rejectedCount = 0
        relatchCount = 0
    }

    /// Where to send now: the latched address, else the signalled one.
    @inlinable
    public var destination: Address? { latched ?? signalled }

    /// Decides on an authenticated packet.
    /// - Parameters:
    ///   - source: the address it came from.
    ///   - arrival: when it arrived.
    @inlinable
    public mutating func authenticatedPacket(from source: Address, at arrival: MediaInstant) -> Decision {
        guard let current = latched else {
            latched = source
            lastAccepted = arrival
            return .latched(source)
        }
        if current == source {
            lastAccepted = arrival
            return .accept
        }
        if let relatchAfter, source == signalled || lastAccepted.map({ arrival - $0 >= relatchAfter }) == true {
            latched = source
            self.lastAccepted = arrival
            relatchCount &+= 1
            return .latched(source)
        }
        rejectedCount &+= 1
        return .reject
    }

    /// Starts over with a new signalled address (a re-INVITE moved the stream).
    /// - Parameter signalledAddress: the new address from the SDP.
    @inlinable
    public mutating func reset(signalledAddress: Address?) {
        signalled = signalledAddress
        latched = nil
        lastAccepted = nil
    }
}
