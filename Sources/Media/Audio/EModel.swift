/// A call-quality estimate from a simplified ITU-T G.107 E-model, for one direction of a call.
///
/// The transmission rating is
///
///     R = 93.2 - Id - Ie,eff
///
/// where 93.2 is G.107's R with every default value (Ro - Is with no delay, echo or codec impairment),
/// and the advantage factor A is 0.
///
/// - Delay: `Id = 0.024·d + 0.11·(d - 177.3)·H(d - 177.3)`, d the one-way mouth-to-ear delay in ms and H
///   the unit step (0 below 0, 1 from 0): the Cole–Rosenbluth fit of G.107's Idte + Idle + Idd with G.107's
///   default echo values (TELR 65 dB, WEPL 110 dB).
/// - Codec and loss (G.107 §7.5): `Ie,eff = Ie + (95 - Ie) · Ppl / (Ppl / BurstR + Bpl)`, Ppl the packet
///   loss in percent, BurstR the burst ratio (1 for random loss; `burstRatio(lossRate:meanBurstLength:)`).
///
/// R then maps to a MOS by G.107 Annex B: 1 for R < 0, 4.5 for R > 100, else
/// `MOS = 1 + 0.035·R + R·(R - 60)·(100 - R)·7·10⁻⁶`. With no delay and no loss, G.711 gives R = 93.2 and
/// MOS 4.41.
///
/// The codec constants are in `CodecImpairment`.
public enum EModel {
    /// The default transmission rating with no delay, loss or codec impairment (G.107 §7.7 defaults).
    public static let defaultRating = 93.2

    /// A codec's equipment impairment factor Ie and packet-loss robustness factor Bpl.
    public struct CodecImpairment: Sendable, Hashable {
        /// The equipment impairment factor Ie (0 for G.711).
        public var ie: Double
        /// The packet-loss robustness factor Bpl: the larger, the better the codec hides loss.
        public var bpl: Double

        /// - Parameters:
        ///   - ie: the equipment impairment factor.
        ///   - bpl: the packet-loss robustness factor (positive).
        public init(ie: Double, bpl: Double) {
            self.ie = ie
            self.bpl = max(bpl, 0.1)
        }

        /// G.711 with packet-loss concealment, random loss: Ie = 0, Bpl = 25.1 (ITU-T G.113 Appendix I,
        /// Table I.3, G.711 with the concealment of G.711 Appendix I). The `G711Decoder`'s concealment
        /// (repetition with a fade) is simpler, so this is slightly optimistic under loss.
        public static let g711 = CodecImpairment(ie: 0, bpl: 25.1)

        /// G.711 without concealment (silence for a lost packet): Ie = 0, Bpl = 4.3 (G.113 Appendix I, Table I.3).
        public static let g711WithoutConcealment = CodecImpairment(ie: 0, bpl: 4.3)

        /// Opus (provisional): Ie = 0, Bpl = 25.1. G.113 gives no narrowband values for Opus; on the
        /// narrowband R scale a wideband Opus stream at 16 kbit/s or more is rated no worse than G.711 (Ie =
        /// 0), and its PLC is taken as robust as G.711's Appendix I concealment. Pass the loss left after FEC
        /// recovery, since a packet rebuilt from FEC is not a loss to the listener.
        public static let opus = CodecImpairment(ie: 0, bpl: 25.1)
    }

    /// The delay impairment Id for a one-way mouth-to-ear delay (Cole–Rosenbluth fit of G.107).
    /// - Parameter oneWayDelay: milliseconds from mouth to ear (network + jitter buffer + packetization).
    public static func delayImpairment(oneWayDelay: Double) -> Double {
        let d = max(0, oneWayDelay)
        return 0.024 * d + (d > 177.3 ? 0.11 * (d - 177.3) : 0)
    }

    /// The effective equipment impairment Ie,eff (G.107 §7.5).
    /// - Parameters:
    ///   - codec: the codec's Ie and Bpl.
    ///   - packetLoss: the packet loss in percent, 0...100.
    ///   - burstRatio: BurstR, 1 for random loss.
    public static func effectiveEquipmentImpairment(codec: CodecImpairment, packetLoss: Double, burstRatio: Double = 1)
        -> Double
    {
        let loss = min(max(packetLoss, 0), 100)
        let burst = max(burstRatio, 1)
        return codec.ie + (95 - codec.ie) * loss / (loss / burst + codec.bpl)
    }

    /// The transmission rating R.
    /// - Parameters:
    ///   - codec: the codec's Ie and Bpl.
    ///   - oneWayDelay: milliseconds from mouth to ear.
    ///   - packetLoss: the packet loss in percent, 0...100.
    ///   - burstRatio: BurstR, 1 for random loss.
    public static func rating(
        codec: CodecImpairment, oneWayDelay: Double, packetLoss: Double, burstRatio: Double = 1
    ) -> Double {
        defaultRating - delayImpairment(oneWayDelay: oneWayDelay)
            - effectiveEquipmentImpairment(codec: codec, packetLoss: packetLoss, burstRatio: burstRatio)
    }

    /// The mean opinion score (1...4.5) for a rating, by G.107 Annex B.
    /// - Parameter rating: the transmission rating R.
    public static func meanOpinionScore(rating r: Double) -> Double {
        if r <= 0 { return 1 }
        if r >= 100 { return 4.5 }
        return 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6
    }

    /// The mean opinion score for a codec, delay and loss: `meanOpinionScore(rating: rating(...))`.
    /// - Parameters:
    ///   - codec: the codec's Ie and Bpl.
    ///   - oneWayDelay: milliseconds from mouth to ear.
    ///   - packetLoss: the packet loss in percent, 0...100.
    ///   - burstRatio: BurstR, 1 for random loss.
    public static func meanOpinionScore(
        codec: CodecImpairment, oneWayDelay: Double, packetLoss: Double, burstRatio: Double = 1
    ) -> Double {
        meanOpinionScore(
            rating: rating(codec: codec, oneWayDelay: oneWayDelay, packetLoss: packetLoss, burstRatio: burstRatio))
    }

    /// BurstR for loss following a two-state Markov model (G.107 §7.5): `(1 - p) · L`, with p the loss rate
    /// and L the mean number of consecutive packets lost; 1 when losses are independent.
    /// - Parameters:
    ///   - lossRate: the fraction of packets lost, 0..<1.
    ///   - meanBurstLength: the mean run of consecutive losses, at least 1.
    public static func burstRatio(lossRate: Double, meanBurstLength: Double) -> Double {
        let p = min(max(lossRate, 0), 0.999)
        return max(1, (1 - p) * max(meanBurstLength, 1))
    }
}
