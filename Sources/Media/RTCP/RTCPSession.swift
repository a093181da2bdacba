/// The RTCP side of one two-party RTP session (RFC 3550 §6): when to report (the A.7 interval with timer
/// and reverse reconsideration), what to report (SR or RR with a report block from the receiver statistics,
/// SDES CNAME, BYE at the end), and what the other side's reports say (the round-trip time from LSR and
/// DLSR, §6.4.1, and its view of our stream).
///
/// Sans-I/O: the caller arms a timer for ``nextReportTime``, calls ``timerExpired(sender:receiver:)`` when it
/// fires and sends the bytes it returns (through SRTCP when in use); it hands decoded compound packets to
/// ``receive(_:size:sender:receiver:)``. Time comes from the injected ``MediaClock``.
public struct RTCPSession: Sendable {
    /// What one received compound packet told us.
    public struct Reception: Hashable, Sendable {
        /// The round-trip time computed from a report block about our stream, when it carried an LSR.
        public var roundTripTime: Duration?
        /// The other side's report block about our stream.
        public var reportAboutUs: RTCPReportBlock?
        /// The other side's sender information, when it sent an SR.
        public var senderInfo: RTCPSenderInfo?
        /// A BYE, when the other side left.
        public var goodbye: RTCPGoodbye?
    }

    /// The configuration.
    public let configuration: RTCPConfiguration
    private let clock: any MediaClock
    private var random: any RandomNumberGenerator & Sendable

    /// When the next report is due: arm a timer for it.
    public private(set) var nextReportTime: MediaInstant
    /// The latest round-trip time (RFC 3550 §6.4.1).
    public private(set) var roundTripTime: Duration? {
        get { roundTripNanoseconds == .min ? nil : .nanoseconds(roundTripNanoseconds) }
        set { roundTripNanoseconds = newValue?.nanoseconds ?? .min }
    }
    /// The other side's latest report block about our stream.
    public private(set) var latestReportAboutUs: RTCPReportBlock?
    /// The other side's CNAME, once an SDES carried it.
    public private(set) var remoteCNAME: String?
    /// Compound packets sent and received.
    public var reportsSent: Int { Int(sentCount) }
    /// Compound packets received.
    public var reportsReceived: Int { Int(receivedCount) }
    // Kept compact (every stream has one session): `.min` stands for no round-trip time, and the counts wrap.
    private var roundTripNanoseconds: Int64 = .min
    private var sentCount: UInt32 = 0
    private var receivedCount: UInt32 = 0

    // RFC 3550 A.7 state: tp, pmembers, avg_rtcp_size, initial.
    private var lastTransmission: MediaInstant
    private var previousMembers = 1
    private var averageSize: Double
    private var isInitial = true
    private var remoteIsMember = false
    private var remoteLeft = false
    /// (SSRC, packet count) of our sender and the remote source's packet count at the last two reports, to
    /// tell whether each side sent RTP "since the report before last" (§6.4).
    private var ourCounts = LastTwo<(UInt32, UInt32)>()
    private var remoteCounts = LastTwo<UInt64>()

    /// - Parameters:
    ///   - configuration: the CNAME, bandwidth and minimum interval.
    ///   - clock: the monotonic and wall clocks.
    ///   - random: the source of the interval randomisation.
    public init(
        configuration: RTCPConfiguration, clock: any MediaClock, random: some RandomNumberGenerator & Sendable
    ) {
        var configuration = configuration
        if configuration.cname.utf8.count > 255 {
            configuration.cname = String(decoding: configuration.cname.utf8.prefix(255), as: UTF8.self)
        }
        self.configuration = configuration
        self.clock = clock
        self.random = random
        let now = clock.now()
        lastTransmission = now
        // The probable size of our first compound packet: RR with one block, SDES CNAME, headers (A.7).
        averageSize = Double(8 + 24 + 12 + configuration.cname.utf8.count + configuration.packetOverhead)
        nextReportTime = now
        nextReportTime = now + Self.duration(seconds: interval(weSent: false, senders: 0))
    }

    /// The report timer fired (RFC 3550 A.7 OnExpire with timer reconsideration).
    /// - Parameters:
    ///   - sender: our RTP sender (for the SR's counts and SSRC).
    ///   - receiver: our RTP receiver (for the report block; its interval loss is reset).
    /// - Returns: the compound packet to send now (SR or RR, then SDES CNAME), or `nil` when reconsideration
    ///   moved the report later; either way, re-arm the timer for ``nextReportTime``.
    public mutating func timerExpired(sender: RTPSender, receiver: inout RTPReceiver) -> [UInt8]? {
        let now = clock.now()
        let (weSent, senders) = activity(sender: sender, receiver: receiver)
        let candidate = lastTransmission + Self.duration(seconds: interval(weSent: weSent, senders: senders))
        guard candidate <= now else {
            nextReportTime = candidate
            previousMembers = members
            return nil
        }
        let bytes = makeReport(sender: sender, receiver: &receiver, weSent: weSent, now: now, goodbye: nil)
        averageSize += (Double(bytes.count + configuration.packetOverhead) - averageSize) / 16
        lastTransmission = now
        isInitial = false
        ourCounts.append((sender.ssrc, sender.packetCount))
        remoteCounts.append(receiver.source?.packetsReceived ?? 0)
        nextReportTime = now + Self.duration(seconds: interval(weSent: weSent, senders: senders))
        previousMembers = members
        sentCount &+= 1
        return bytes
    }

    /// Takes a decoded compound packet from the other side (RFC 3550 A.7 OnReceive, §6.4.1).
    /// - Parameters:
    ///   - compound: the packet.
    ///   - size: the datagram's length in bytes (for the average RTCP size).
    ///   - sender: our sender, whose SSRC the other side's report blocks name.
    ///   - receiver: our receiver, which learns the other side's SR time for LSR/DLSR.
    /// - Returns: what the packet told us.
    public mutating func receive(
        _ compound: RTCPCompoundPacket, size: Int, sender: RTPSender, receiver: inout RTPReceiver
    ) -> Reception {
        let now = clock.now()
        var reception = Reception()
        receivedCount &+= 1
        averageSize += (Double(size + configuration.packetOverhead) - averageSize) / 16
        var blocks: [RTCPReportBlock] = []
        for packet in compound.packets {
            switch packet {
            case .senderReport(let report):
                remoteIsMember = true
                reception.senderInfo = report.senderInfo
                receiver.receivedSenderReport(from: report.ssrc, ntp: report.senderInfo.ntpTimestamp, at: now)
                blocks += report.reportBlocks
            case .receiverReport(let report):
                remoteIsMember = true
                blocks += report.reportBlocks
            case .sourceDescription(let description):
                if let cname = description.chunks.lazy.compactMap(\.cname).first { remoteCNAME = cname }
            case .goodbye(let goodbye):
                reception.goodbye = goodbye
                remoteLeft = true
                reverseReconsider(now: now)
            case .other:
                break
            }
        }
        if let block = blocks.first(where: { $0.ssrc == sender.ssrc }) {
            reception.reportAboutUs = block
            latestReportAboutUs = block
            if block.lastSenderReport != 0 {
                // RTT = A - LSR - DLSR in units of 1/65536 s (RFC 3550 §6.4.1); negative means clock trouble.
                let arrival = clock.wallclock().middle32
                let rtt = Int32(bitPattern: arrival &- block.lastSenderReport &- block.delaySinceLastSenderReport)
                if rtt >= 0 {
                    let duration = Duration.nanoseconds(Int64(rtt) * 1_000_000_000 / 65536)
                    reception.roundTripTime = duration
                    roundTripTime = duration
                }
            }
        }
        return reception
    }

    /// The compound packet to send when leaving: SR or RR, SDES CNAME and BYE (RFC 3550 §6.6); with two
    /// members it goes at once (§6.3.7).
    /// - Parameters:
    ///   - sender: our sender.
    ///   - receiver: our receiver.
    ///   - reason: a reason for leaving, if any.
    public mutating func makeGoodbye(sender: RTPSender, receiver: inout RTPReceiver, reason: String? = nil) -> [UInt8] {
        let (weSent, _) = activity(sender: sender, receiver: receiver)
        var goodbye = RTCPGoodbye(sources: [sender.ssrc], reason: reason)
        if let text = goodbye.reason, text.count > 255 { goodbye.reason = Array(text.prefix(255)) }
        sentCount &+= 1
        return makeReport(sender: sender, receiver: &receiver, weSent: weSent, now: clock.now(), goodbye: goodbye)
    }

    /// The members we count: us, and the other side once heard and until it said BYE (§6.2.1).
    private var members: Int { remoteIsMember && !remoteLeft ? 2 : 1 }

    private func activity(sender: RTPSender, receiver: RTPReceiver) -> (weSent: Bool, senders: Int) {
        let weSent = sender.packetCount > 0 && ourCounts.first.map { $0 != (sender.ssrc, sender.packetCount) } ?? true
        let remoteCount = receiver.source?.packetsReceived ?? 0
        let remoteSent = !remoteLeft && remoteCount > 0 && remoteCount != (remoteCounts.first ?? 0)
        return (weSent, (weSent ? 1 : 0) + (remoteSent ? 1 : 0))
    }

    private mutating func interval(weSent: Bool, senders: Int) -> Double {
        let deterministic = RTCPInterval.deterministic(
            members: members, senders: senders, rtcpBandwidth: configuration.rtcpBandwidth, weSent: weSent,
            averageSize: averageSize, isInitial: isInitial,
            minimum: configuration.minimumInterval.seconds(sessionBandwidth: configuration.sessionBandwidth))
        return RTCPInterval.randomized(deterministic, using: &random)
    }

    /// An interval as a duration, kept within a day whatever the configuration says.
    private static func duration(seconds: Double) -> Duration {
        seconds.isFinite ? .nanoseconds(Int64(min(max(seconds, 0), 86_400) * 1e9)) : .seconds(5)
    }

    /// Reverse reconsideration after a BYE (RFC 3550 §6.3.4): pull the next report in proportionally.
    private mutating func reverseReconsider(now: MediaInstant) {
        let members = self.members
        guard members < previousMembers else { return }
        let ratio = Double(members) / Double(previousMembers)
        let untilNext = Double(max(nextReportTime.nanoseconds - now.nanoseconds, 0)) * ratio
        let sinceLast = Double(max(now.nanoseconds - lastTransmission.nanoseconds, 0)) * ratio
        nextReportTime = MediaInstant(nanoseconds: now.nanoseconds + Int64(untilNext))
        lastTransmission = MediaInstant(nanoseconds: now.nanoseconds - Int64(sinceLast))
        previousMembers = members
    }

    private func makeReport(
        sender: RTPSender, receiver: inout RTPReceiver, weSent: Bool, now: MediaInstant, goodbye: RTCPGoodbye?
    ) -> [UInt8] {
        let blocks = receiver.makeReportBlocks(at: now)
        var packets: [RTCPPacket] = []
        if weSent {
            let info = RTCPSenderInfo(
                ntpTimestamp: clock.wallclock(), rtpTimestamp: sender.rtpTimestamp(at: now) ?? sender.nextTimestamp,
                packetCount: sender.packetCount, octetCount: sender.octetCount)
            packets.append(.senderReport(RTCPSenderReport(ssrc: sender.ssrc, senderInfo: info, reportBlocks: blocks)))
        } else {
            packets.append(.receiverReport(RTCPReceiverReport(ssrc: sender.ssrc, reportBlocks: blocks)))
        }
        packets.append(.sourceDescription(.cname(configuration.cname, ssrc: sender.ssrc)))
        if let goodbye { packets.append(.goodbye(goodbye)) }
        // Cannot fail: one block, a CNAME cut to 255 bytes, one BYE source and a reason cut to 255 bytes.
        return (try? RTCPCompoundPacket(packets: packets).serialized(reservingCapacity: 32)) ?? []
    }
}

/// The latest two values, in the session's own storage (no array per stream).
private struct LastTwo<Value: Sendable>: Sendable {
    private var older: Value?
    private var newer: Value?

    /// The older of the two, or the only one.
    var first: Value? { older ?? newer }

    mutating func append(_ value: Value) {
        older = newer
        newer = value
    }
}
