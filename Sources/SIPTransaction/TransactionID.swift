/// Names one transaction of a `TransactionLayer`. An identifier carries the transaction's storage slot and
/// that slot's generation, which changes each time the slot is freed: a timer or a transport error that
/// arrives after its transaction ended finds nothing and is ignored (a slot would have to be reused 2^32
/// times for an old identifier to name a new transaction).
public struct TransactionID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The number (generation << 32 | slot << 2 | kind); a driver may store it (in a timer wheel, a
    /// connection table) and rebuild the identifier.
    public let rawValue: UInt64

    public init(_ rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public static func < (a: TransactionID, b: TransactionID) -> Bool { a.rawValue < b.rawValue }

    public var description: String { "tx\(rawValue)" }
}

/// The timers of RFC 3261 §17 (Table 4) and RFC 6026 §8, plus the INVITE server transaction's wait for
/// the TU before it sends 100 Trying (§17.2.1).
///
/// The set is fixed by the RFCs, so it is a closed enum; the raw values fit in four bits, for drivers that
/// pack a `TimerID` into one integer.
public enum TimerKind: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// INVITE request retransmission, unreliable transports only (§17.1.1.2).
    case a = 1
    /// INVITE transaction timeout, 64*T1 (§17.1.1.2).
    case b
    /// Wait for response retransmissions after a non-2xx final response to INVITE (§17.1.1.2).
    case d
    /// Non-INVITE request retransmission, unreliable transports only (§17.1.2.2).
    case e
    /// Non-INVITE transaction timeout, 64*T1 (§17.1.2.2).
    case f
    /// INVITE non-2xx final response retransmission, unreliable transports only (§17.2.1).
    case g
    /// Wait for the ACK of a non-2xx final response, 64*T1 (§17.2.1).
    case h
    /// Wait for ACK retransmissions, T4 on unreliable transports (§17.2.1).
    case i
    /// Wait for non-INVITE request retransmissions, 64*T1 on unreliable transports (§17.2.2).
    case j
    /// Wait for non-INVITE response retransmissions, T4 on unreliable transports (§17.1.2.2).
    case k
    /// Wait for 2xx retransmissions from the TU and the ACK in Accepted, 64*T1 (RFC 6026 §8.7).
    case l
    /// Wait for 2xx retransmissions in Accepted, 64*T1 (RFC 6026 §8.4).
    case m
    /// The TU's time to answer an INVITE before the transaction sends 100 Trying (§17.2.1: 200 ms).
    case trying
    /// 64*T1 after a CANCEL of an INVITE with no final response yet: the INVITE client transaction is then
    /// considered cancelled and destroyed (§9.1), so a far end that vanished cannot hold it forever.
    case cancelled

    public var description: String {
        switch self {
        case .a: "A"
        case .b: "B"
        case .d: "D"
        case .e: "E"
        case .f: "F"
        case .g: "G"
        case .h: "H"
        case .i: "I"
        case .j: "J"
        case .k: "K"
        case .l: "L"
        case .m: "M"
        case .trying: "Trying"
        case .cancelled: "Cancelled"
        }
    }
}

/// One armed timer: which transaction, which timer. A transaction arms at most one timer of each kind.
public struct TimerID: Sendable, Hashable, CustomStringConvertible {
    public var transaction: TransactionID
    public var kind: TimerKind

    public init(_ transaction: TransactionID, _ kind: TimerKind) {
        self.transaction = transaction
        self.kind = kind
    }

    public var description: String { "\(transaction).\(kind)" }
}
