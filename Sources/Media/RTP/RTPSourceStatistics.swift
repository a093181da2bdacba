/// Reception statistics of one remote source (RFC 3550 §6.4.1 and Appendix A): sequence validation with
/// wrap and probation (A.1), cumulative and fractional loss (A.3), interarrival jitter (A.8), packet and byte
/// counts, and the last sender report for LSR/DLSR.
public struct RTPSourceStatistics: Sendable {
    /// The outcome of A.1's sequence check for one packet.
    public enum SequenceVerdict: Hashable, Sendable {
        /// The packet counts: in sequence, after a gap below MAX_DROPOUT, or late/duplicate within
        /// MAX_MISORDER.
        case valid
        /// The source is still on probation: fewer than MIN_SEQUENTIAL packets in sequence.
        case probation
        /// A jump beyond MAX_DROPOUT (or far behind): not counted until the next packet confirms it.
        case badSequence
        /// The packet confirmed a jump: the source restarted its sequence and the counts started over.
        case restarted
    }

    /// A forward jump below this is loss, not a restart (RFC 3550 A.1).
    public static let maxDropout: UInt16 = 3000
    /// A packet at most this far behind the highest is late or duplicated (RFC 3550 A.1).
    public static let maxMisorder: UInt16 = 100
    /// In-sequence packets that make a new source valid (RFC 3550 A.1).
    public static let minSequential = 2

    /// The source.
    public let ssrc: UInt32
    /// The payload format's clock rate in Hz, for jitter.
    public let clockRate: UInt32

    private var maxSequence: UInt16
    private var cycles: UInt32 = 0
    private var baseSequence: UInt32
    private var badSequence: UInt32 = 0x1_0001
    private var probation: Int
    private var received: UInt32 = 0
    private var expectedPrior: UInt32 = 0
    private var receivedPrior: UInt32 = 0
    private var previous: (arrival: MediaInstant, timestamp: UInt32)?
    /// The interarrival jitter estimate in timestamp units, as a real number (A.8 keeps it scaled by 16).
    private var jitterEstimate: Double = 0

    /// Every packet this source sent us, duplicates and bad ones included.
    public private(set) var packetsReceived: UInt64 = 0
    /// The bytes of those packets (RTP header and payload; no UDP/IP, no SRTP tag).
    public private(set) var bytesReceived: UInt64 = 0
    /// The payload bytes of those packets.
    public private(set) var payloadBytesReceived: UInt64 = 0
    /// How often the source restarted its sequence numbers (A.1's two-packet confirmation).
    public private(set) var restarts = 0
    /// When the latest packet arrived.
    public private(set) var lastArrival: MediaInstant?
    /// The middle 32 bits of the NTP timestamp of the source's latest sender report and when it arrived.
    public private(set) var lastSenderReport: (ntp: UInt32, arrival: MediaInstant)?

    /// A new source, on probation until MIN_SEQUENTIAL packets arrive in sequence (A.1).
    /// - Parameters:
    ///   - ssrc: the source.
    ///   - firstSequenceNumber: the sequence number of its first packet, which `receive` then counts.
    ///   - clockRate: the payload format's clock rate in Hz.
    public init(ssrc: UInt32, firstSequenceNumber: UInt16, clockRate: UInt32) {
        self.ssrc = ssrc
        self.clockRate = max(clockRate, 1)
        maxSequence = firstSequenceNumber &- 1
        baseSequence = UInt32(firstSequenceNumber)
        probation = RTPSourceStatistics.minSequential
    }

    /// True once the source passed probation.
    public var isValid: Bool { probation == 0 }
    /// The highest sequence number received, with the count of wraps in the high 16 bits (RFC 3550 §6.4.1).
    public var extendedHighestSequenceNumber: UInt32 { cycles &+ UInt32(maxSequence) }
    /// Packets expected since the source became valid (A.3).
    public var expectedPackets: UInt32 { extendedHighestSequenceNumber &- baseSequence &+ 1 }
    /// Packets counted since the source became valid (A.1's `received`; duplicates count, as in the RFC).
    public var validPackets: UInt32 { received }
    /// Cumulative packets lost: expected minus received, negative with duplicates (A.3).
    public var cumulativeLost: Int64 { isValid ? Int64(expectedPackets) - Int64(received) : 0 }
    /// The interarrival jitter in timestamp units, as a report block carries it (A.8).
    public var jitter: UInt32 { UInt32(min(jitterEstimate, Double(UInt32.max))) }
    /// The interarrival jitter in milliseconds.
    public var jitterMilliseconds: Double { jitterEstimate * 1000 / Double(clockRate) }

    /// Counts one packet of this source: A.1's sequence check, then A.8's jitter and the counts.
    /// - Parameters:
    ///   - packet: the decoded packet.
    ///   - size: its length in bytes (header and payload).
    ///   - arrival: when it arrived.
    ///   - includeInJitter: false for packets whose timestamp does not follow the media clock (RFC 4733
    ///     events repeat their start timestamp), so they do not distort the jitter.
    /// - Returns: A.1's verdict.
    @discardableResult
    public mutating func receive(_ packet: RTPPacket, size: Int, at arrival: MediaInstant, includeInJitter: Bool = true)
        -> SequenceVerdict
    {
        packetsReceived &+= 1
        bytesReceived &+= UInt64(max(size, 0))
        payloadBytesReceived &+= UInt64(packet.payload.count)
        lastArrival = arrival
        let verdict = updateSequence(packet.sequenceNumber)
        if includeInJitter && verdict != .badSequence {
            updateJitter(timestamp: packet.timestamp, arrival: arrival)
        }
        return verdict
    }

    /// Records the arrival of a sender report from this source (for LSR and DLSR, RFC 3550 §6.4.1).
    /// - Parameters:
    ///   - ntp: the report's NTP timestamp.
    ///   - arrival: when it arrived.
    public mutating func receivedSenderReport(ntp: NTPTimestamp, at arrival: MediaInstant) {
        lastSenderReport = (ntp.middle32, arrival)
    }

    /// The report block about this source (RFC 3550 §6.4.1) at `now`; the fraction lost covers the time
    /// since the previous call (A.3), so call it once per report sent.
    public mutating func makeReportBlock(at now: MediaInstant) -> RTCPReportBlock {
        let expected = expectedPackets
        let expectedInterval = expected &- expectedPrior
        expectedPrior = expected
        let receivedInterval = received &- receivedPrior
        receivedPrior = received
        let lostInterval = Int64(expectedInterval) - Int64(receivedInterval)
        let fraction: UInt8 =
            expectedInterval == 0 || lostInterval <= 0
            ? 0 : UInt8(min((lostInterval << 8) / Int64(expectedInterval), 255))
        var lsr: UInt32 = 0
        var dlsr: UInt32 = 0
        if let lastSenderReport {
            lsr = lastSenderReport.ntp
            let delay = max(now.nanoseconds &- lastSenderReport.arrival.nanoseconds, 0)
            let units = delay / 1_000_000_000 * 65536 + (delay % 1_000_000_000) * 65536 / 1_000_000_000
            dlsr = UInt32(min(units, 0xFFFF_FFFF))
        }
        let lost = Int32(min(max(cumulativeLost, -0x80_0000), 0x7F_FFFF))
        return RTCPReportBlock(
            ssrc: ssrc, fractionLost: fraction, cumulativeLost: lost,
            extendedHighestSequenceNumber: extendedHighestSequenceNumber, interarrivalJitter: jitter,
            lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }

    /// RFC 3550 A.1 `init_seq`.
    private mutating func initSequence(_ sequence: UInt16) {
        baseSequence = UInt32(sequence)
        maxSequence = sequence
        badSequence = 0x1_0001
        cycles = 0
        received = 0
        receivedPrior = 0
        expectedPrior = 0
    }

    /// RFC 3550 A.1 `update_seq`.
    private mutating func updateSequence(_ sequence: UInt16) -> SequenceVerdict {
        let delta = sequence &- maxSequence
        if probation > 0 {
            if sequence == maxSequence &+ 1 {
                probation -= 1
                maxSequence = sequence
                if probation == 0 {
                    initSequence(sequence)
                    received &+= 1
                    return .valid
                }
            } else {
                probation = RTPSourceStatistics.minSequential - 1
                maxSequence = sequence
            }
            return .probation
        }
        var verdict = SequenceVerdict.valid
        if delta < RTPSourceStatistics.maxDropout {
            if sequence < maxSequence { cycles &+= 0x1_0000 }
            maxSequence = sequence
        } else if Int(delta) <= 0x1_0000 - Int(RTPSourceStatistics.maxMisorder) {
            guard UInt32(sequence) == badSequence else {
                badSequence = (UInt32(sequence) + 1) & 0xFFFF
                return .badSequence
            }
            initSequence(sequence)
            restarts += 1
            previous = nil
            verdict = .restarted
        }
        received &+= 1
        return verdict
    }

    /// RFC 3550 A.8: J += (|D(i-1,i)| - J) / 16, with D the difference of relative transit times, in
    /// timestamp units.
    private mutating func updateJitter(timestamp: UInt32, arrival: MediaInstant) {
        defer { previous = (arrival, timestamp) }
        guard let previous else { return }
        let arrivalDelta = Double(arrival.nanoseconds &- previous.arrival.nanoseconds) * Double(clockRate) / 1e9
        let timestampDelta = Double(Int32(bitPattern: timestamp &- previous.timestamp))
        let d = (arrivalDelta - timestampDelta).magnitude
        guard d.isFinite else { return }
        jitterEstimate += (d - jitterEstimate) / 16
    }
}
