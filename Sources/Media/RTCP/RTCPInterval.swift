/// The RTCP transmission interval of RFC 3550 §6.2 and Appendix A.7.
public enum RTCPInterval {
    /// The minimum interval between reports (RFC 3550 §6.2).
    public enum Minimum: Hashable, Sendable {
        /// The recommended fixed 5 seconds.
        case standard
        /// 360 / session bandwidth in kbit/s seconds, the reduced minimum that §6.2 allows unicast
        /// participants (e.g. 4.5 s at 80 kbit/s).
        case reduced
        /// A fixed minimum chosen by the profile or the application.
        case fixed(Duration)

        /// The minimum in seconds for a session bandwidth in bits per second.
        func seconds(sessionBandwidth: Int) -> Double {
            switch self {
            case .standard: return 5
            case .reduced: return 360 / max(Double(sessionBandwidth) / 1000, 0.001)
            case .fixed(let duration): return max(duration.seconds, 0)
            }
        }
    }

    /// Senders share a quarter of the RTCP bandwidth when they are at most a quarter of the members.
    static let senderBandwidthFraction = 0.25
    /// e - 3/2: compensates for the timer reconsideration's bias towards shorter intervals (A.7).
    static let compensation = 2.718_281_828_459_045 - 1.5

    /// The deterministic interval `Td` in seconds, before randomisation (RFC 3550 §6.3.1, A.7).
    /// - Parameters:
    ///   - members: the session members, us included.
    ///   - senders: the members that sent RTP recently.
    ///   - rtcpBandwidth: the RTCP bandwidth in octets per second.
    ///   - weSent: true when we sent RTP since the report before last.
    ///   - averageSize: the average compound RTCP size in octets, with UDP and IP headers.
    ///   - isInitial: true before our first report (the minimum is halved).
    ///   - minimum: the minimum interval in seconds.
    public static func deterministic(
        members: Int, senders: Int, rtcpBandwidth: Double, weSent: Bool, averageSize: Double, isInitial: Bool,
        minimum: Double
    ) -> Double {
        let minimumTime = isInitial ? minimum / 2 : minimum
        var bandwidth = max(rtcpBandwidth, 1e-3)
        var n = Double(max(members, 1))
        if Double(senders) <= Double(members) * senderBandwidthFraction {
            if weSent {
                bandwidth *= senderBandwidthFraction
                n = Double(max(senders, 1))
            } else {
                bandwidth *= 1 - senderBandwidthFraction
                n -= Double(senders)
            }
        }
        return max(averageSize * n / bandwidth, minimumTime)
    }

    /// The randomised interval `T` in seconds: `Td` times a factor uniform in [0.5, 1.5], divided by e - 3/2
    /// (RFC 3550 §6.3.1, A.7).
    /// - Parameters:
    ///   - deterministic: `Td` in seconds.
    ///   - generator: the source of the randomisation.
    public static func randomized(_ deterministic: Double, using generator: inout some RandomNumberGenerator)
        -> Double
    {
        deterministic * factor(using: &generator) / compensation
    }

    /// A factor uniform in [0.5, 1.5]: what `Double.random(in: 0.5...1.5, using:)` returns for the same
    /// generator (the same draws, so the same value), without its generic code, which the standard library
    /// runs unspecialised here at several thousand instructions a draw, one draw per report and per stream.
    static func factor(using generator: inout some RandomNumberGenerator) -> Double {
        // A significand of 53 bits drawn in 0...2^53 (Lemire's bounded draw with rejection, as
        // `next(upperBound:)` does); 2^53 stands for the upper bound itself.
        let top: UInt64 = 1 << 53
        let bound = top + 1
        var draw = generator.next().multipliedFullWidth(by: bound)
        if draw.low < bound {
            let threshold = (0 &- bound) % bound
            while draw.low < threshold { draw = generator.next().multipliedFullWidth(by: bound) }
        }
        if draw.high == top { return 1.5 }
        return Double(draw.high) * (Double.ulpOfOne / 2) + 0.5
    }
}

/// How an RTCP session reports (RFC 3550 §6).
public struct RTCPConfiguration: Sendable {
    /// Our CNAME (RFC 3550 §6.5.1, RFC 7022: a random identifier per call is fine); at most 255 bytes.
    public var cname: String
    /// The session bandwidth in bits per second (the b=AS value, or the codec's rate with headers:
    /// about 80 kbit/s for G.711 at 20 ms).
    public var sessionBandwidth: Int
    /// The share of the session bandwidth for RTCP (RFC 3550 §6.2: 5 %).
    public var rtcpFraction: Double
    /// The minimum report interval.
    public var minimumInterval: RTCPInterval.Minimum
    /// Bytes each RTCP datagram costs beyond the compound packet: UDP and IP headers (28 for IPv4, 48 for
    /// IPv6) plus the SRTCP trailer (14 with AES_CM_128_HMAC_SHA1_80) when SRTP is in use.
    public var packetOverhead: Int

    /// - Parameters:
    ///   - cname: our CNAME.
    ///   - sessionBandwidth: the session bandwidth in bit/s, 80,000 by default.
    ///   - rtcpFraction: the RTCP share, 5 % by default.
    ///   - minimumInterval: the minimum interval, the standard 5 s by default.
    ///   - packetOverhead: UDP/IP (and SRTCP) bytes per datagram, 28 by default.
    public init(
        cname: String, sessionBandwidth: Int = 80_000, rtcpFraction: Double = 0.05,
        minimumInterval: RTCPInterval.Minimum = .standard, packetOverhead: Int = 28
    ) {
        self.cname = cname
        self.sessionBandwidth = sessionBandwidth
        self.rtcpFraction = rtcpFraction
        self.minimumInterval = minimumInterval
        self.packetOverhead = packetOverhead
    }

    /// The RTCP bandwidth in octets per second.
    var rtcpBandwidth: Double { Double(max(sessionBandwidth, 0)) * max(rtcpFraction, 0) / 8 }
}
