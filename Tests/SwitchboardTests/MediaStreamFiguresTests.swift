import Media
import Testing

@testable import Switchboard

@Suite("Media stream: the published figures")
struct MediaStreamFiguresTests {
    @Test func qualityComesOutAsFromTheFullStatistics() throws {
        var statistics = MediaSessionStatistics()
        statistics.packetsSent = 250
        statistics.packetsReceived = 190
        statistics.packetsLost = 10
        statistics.expected = 200
        statistics.jitterMilliseconds = 2.5
        statistics.roundTripMilliseconds = 40.25
        statistics.playoutDelayMilliseconds = 30
        statistics.codec = "PCMU"
        let figures = MediaStreamFigures(statistics)
        let codec = try #require(figures.codec)
        #expect(codec == .pcmu)
        let quality = CallQuality(figures, codec: codec)
        #expect(quality.packetsSent == 250 && quality.packetsReceived == 190 && quality.packetsLost == 10)
        #expect(quality.lossFraction == 0.05 && quality.jitterMilliseconds == 2.5)
        #expect(quality.roundTripMilliseconds == 40.25)
        let mos = EModel.meanOpinionScore(codec: .g711, oneWayDelay: 20.125 + 30 + 20, packetLoss: 5)
        #expect(abs(quality.meanOpinionScore - mos) < 1e-12)
    }

    @Test func anUnknownCodecHasNoQuality() {
        var statistics = MediaSessionStatistics()
        statistics.codec = "G729"
        #expect(MediaStreamFigures(statistics).codec == nil)
        #expect(MediaStreamFigures(MediaSessionStatistics()).codec == nil)
    }

    @Test func theCodecIsFoundByItsNameInAnyCase() {
        let names = ["PCMU", "pcmu", "PCMA", "Pcma", "opus", "OPUS"]
        let kinds: [AudioCodecKind?] = names.map { name in
            var statistics = MediaSessionStatistics()
            statistics.codec = name
            return MediaStreamFigures(statistics).codec
        }
        #expect(kinds == [.pcmu, .pcmu, .pcma, .pcma, .opus, .opus])
    }
}
