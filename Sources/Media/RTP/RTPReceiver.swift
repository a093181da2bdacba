/// The receiving side of one RTP stream: the statistics of the remote source, and detection of a change of
/// source (a new SSRC that replaces the old one, as when a PBX re-bridges a call).
///
/// A packet of an unknown SSRC starts a candidate on probation (RFC 3550 A.1); once it is valid it replaces
/// the current source, whose statistics are reset, and the verdict says so: the playout should restart.
public struct RTPReceiver: Sendable {
    /// What to do with a received packet.
    public enum Verdict: Hashable, Sendable {
        /// A packet of the current source: play it.
        case accepted
        /// A packet of a source still on probation (A.1): playable, though the source is not yet confirmed.
        case probation
        /// The packet made a new source valid and it replaced `previous` (`nil` for the first source): the
        /// statistics restarted; restart the playout too.
        case newSource(previous: UInt32?)
        /// The current source jumped its sequence numbers and the next packet confirmed it (A.1): the
        /// statistics restarted; restart the playout too.
        case restarted
        /// A sequence jump beyond MAX_DROPOUT waiting for confirmation: drop it.
        case badSequence

        /// True when the packet should go on to the jitter buffer.
        public var isPlayable: Bool { self != .badSequence }
    }

    /// The payload format's clock rate in Hz.
    public let clockRate: UInt32
    /// The statistics of the current source, once one is valid.
    public private(set) var source: RTPSourceStatistics?
    /// A new source on probation that would replace the current one.
    public private(set) var candidate: RTPSourceStatistics?
    /// How often a new source replaced the current one.
    public private(set) var sourceChanges = 0

    /// - Parameter clockRate: the payload format's clock rate in Hz.
    public init(clockRate: UInt32) { self.clockRate = clockRate }

    /// Counts one decoded packet.
    /// - Parameters:
    ///   - packet: the packet (after SRTP unprotection).
    ///   - size: its length in bytes.
    ///   - arrival: when it arrived.
    ///   - includeInJitter: false for packets whose timestamp does not follow the media clock (RFC 4733).
    /// - Returns: what to do with it.
    public mutating func receive(
        _ packet: RTPPacket, size: Int, at arrival: MediaInstant, includeInJitter: Bool = true
    ) -> Verdict {
        if source?.ssrc == packet.ssrc,
            let verdict = source?.receive(packet, size: size, at: arrival, includeInJitter: includeInJitter)
        {
            switch verdict {
            case .valid: return .accepted
            case .probation: return .probation
            case .badSequence: return .badSequence
            case .restarted: return .restarted
            }
        }
        var next = RTPSourceStatistics(
            ssrc: packet.ssrc, firstSequenceNumber: packet.sequenceNumber, clockRate: clockRate)
        if let candidate, candidate.ssrc == packet.ssrc { next = candidate }
        candidate = nil
        let verdict = next.receive(packet, size: size, at: arrival, includeInJitter: includeInJitter)
        guard next.isValid else {
            candidate = next
            return verdict == .badSequence ? .badSequence : .probation
        }
        let previous = source?.ssrc
        if previous != nil { sourceChanges += 1 }
        source = next
        return .newSource(previous: previous)
    }

    /// Records a sender report from the current source (for LSR/DLSR).
    /// - Parameters:
    ///   - ssrc: the reporting source.
    ///   - ntp: the report's NTP timestamp.
    ///   - arrival: when it arrived.
    public mutating func receivedSenderReport(from ssrc: UInt32, ntp: NTPTimestamp, at arrival: MediaInstant) {
        if source?.ssrc == ssrc { source?.receivedSenderReport(ntp: ntp, at: arrival) }
        if candidate?.ssrc == ssrc { candidate?.receivedSenderReport(ntp: ntp, at: arrival) }
    }

    /// The report blocks for our next RTCP report: one about the current source once it is valid.
    /// - Parameter now: the time of the report (for DLSR).
    public mutating func makeReportBlocks(at now: MediaInstant) -> [RTCPReportBlock] {
        guard let block = source?.makeReportBlock(at: now) else { return [] }
        return [block]
    }

    /// Forgets the source (a re-INVITE that changes the stream).
    public mutating func reset() {
        source = nil
        candidate = nil
    }
}
