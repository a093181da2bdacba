import Media
import Testing

@Suite struct AudioEModelTests {
    @Test func g711WithoutLossOrDelayRatesFourPointFour() {
        let r = EModel.rating(codec: .g711, oneWayDelay: 0, packetLoss: 0)
        #expect(r == 93.2)
        let mos = EModel.meanOpinionScore(codec: .g711, oneWayDelay: 0, packetLoss: 0)
        #expect(abs(mos - 4.41) < 0.005, "\(mos)")
    }

    /// G.107 Annex B (Figure B.1 and the R-to-MOS table of G.109): R 90, 80, 70, 60, 50.
    @Test(arguments: [(90.0, 4.34), (80.0, 4.03), (70.0, 3.60), (60.0, 3.10), (50.0, 2.58)])
    func ratingMapsToTheStandardMOS(rating: Double, mos: Double) {
        #expect(abs(EModel.meanOpinionScore(rating: rating) - mos) < 0.01)
    }

    @Test func theMOSIsBoundedAtBothEnds() {
        #expect(EModel.meanOpinionScore(rating: -5) == 1)
        #expect(EModel.meanOpinionScore(rating: 0) == 1)
        #expect(EModel.meanOpinionScore(rating: 100) == 4.5)
        #expect(EModel.meanOpinionScore(rating: 120) == 4.5)
    }

    @Test func delayImpairmentFollowsTheFit() {
        #expect(EModel.delayImpairment(oneWayDelay: 0) == 0)
        #expect(abs(EModel.delayImpairment(oneWayDelay: 150) - 3.6) < 1e-9)
        #expect(abs(EModel.delayImpairment(oneWayDelay: 177.3) - 4.2552) < 1e-9)
        #expect(abs(EModel.delayImpairment(oneWayDelay: 300) - (7.2 + 0.11 * 122.7)) < 1e-9)
        // 400 ms one way takes G.711 to about MOS 3.1: "many users dissatisfied" (G.114).
        let mos = EModel.meanOpinionScore(codec: .g711, oneWayDelay: 400, packetLoss: 0)
        #expect(abs(mos - 3.06) < 0.02, "\(mos)")
    }

    @Test func lossImpairmentUsesTheCodecsRobustness() {
        // Ie,eff = 95 · 1 / (1 + 25.1) for G.711 with concealment at 1 % random loss.
        let concealed = EModel.effectiveEquipmentImpairment(codec: .g711, packetLoss: 1)
        #expect(abs(concealed - 95 / 26.1) < 1e-9)
        // Without concealment (Bpl 4.3) the same loss costs far more.
        let bare = EModel.effectiveEquipmentImpairment(codec: .g711WithoutConcealment, packetLoss: 1)
        #expect(abs(bare - 95 / 5.3) < 1e-9)
        let mos = EModel.meanOpinionScore(codec: .g711WithoutConcealment, oneWayDelay: 0, packetLoss: 2)
        #expect(abs(mos - 3.26) < 0.02, "\(mos)")
        // Burst loss is worse than the same random loss.
        let burstR = EModel.burstRatio(lossRate: 0.05, meanBurstLength: 3)
        #expect(abs(burstR - 2.85) < 1e-9)
        #expect(EModel.burstRatio(lossRate: 0.05, meanBurstLength: 1 / 0.95) == 1)
        let random = EModel.rating(codec: .opus, oneWayDelay: 50, packetLoss: 5)
        let bursty = EModel.rating(codec: .opus, oneWayDelay: 50, packetLoss: 5, burstRatio: burstR)
        #expect(bursty < random)
        // Every additional impairment lowers the score.
        var previous = 5.0
        for loss in stride(from: 0.0, through: 20, by: 2) {
            let score = EModel.meanOpinionScore(codec: .opus, oneWayDelay: 100, packetLoss: loss)
            #expect(score < previous)
            previous = score
        }
        #expect(AudioCodecKind.pcma.impairment == .g711 && AudioCodecKind.opus.impairment == .opus)
    }
}
