import Testing

@testable import Media

@Suite("Media session: the final figures")
struct MediaSessionFinalFiguresTests {
    @Test func closingKeepsTheReceiveSideAndCountsTheGoodbye() throws {
        var call = try Call()
        call.network.run(until: .seconds(2))
        let before = call.bob.session.statistics
        #expect(before.packetsReceived > 90 && before.packetsSent > 90)
        call.bob.session.close(at: call.network.now)
        let final = call.bob.session.statistics
        #expect(final.packetsReceived == before.packetsReceived && final.expected == before.expected)
        #expect(final.jitterMilliseconds == before.jitterMilliseconds)
        #expect(final.rtcpSent == before.rtcpSent + 1)
        #expect(final.codec == "PCMU" && final.packetsSent == before.packetsSent)
        // Closing again changes nothing.
        call.bob.session.close(at: call.network.now)
        #expect(call.bob.session.statistics == final)
    }

    @Test func theQualityFiguresAreThoseOfTheStatistics() throws {
        var call = try Call()
        #expect(call.bob.session.quality == MediaSessionQuality(call.bob.session.statistics))
        call.network.run(until: .seconds(12))
        let streaming = call.bob.session.quality
        #expect(streaming == MediaSessionQuality(call.bob.session.statistics))
        #expect(streaming.packetsReceived > 500 && streaming.packetsSent > 500 && streaming.codec == "PCMU")
        #expect(streaming.roundTripMilliseconds != nil && streaming.playoutDelayMilliseconds > 0)
        call.bob.session.close(at: call.network.now)
        #expect(call.bob.session.quality == MediaSessionQuality(call.bob.session.statistics))
    }

    @Test func aSessionThatNeverSentLeavesWithoutAGoodbye() throws {
        var call = try Call()
        while call.bob.session.nextTransmission() != nil {}
        call.bob.session.close(at: call.network.now)
        // RFC 3550 §6.3.7: no RTP or RTCP went out, so no BYE may.
        #expect(call.bob.session.nextTransmission() == nil)
        let final = call.bob.session.statistics
        #expect(final.rtcpSent == 0 && final.packetsSent == 0)
        #expect(call.bob.session.isClosed)
    }

    @Test func countersWrapInsteadOfTrapping() {
        var counters = MediaSessionCounters()
        counters.malformed = .max
        counters.malformed &+= 1
        counters.bytesSent = 1234
        #expect(counters.figures.malformed == 0 && counters.figures.bytesSent == 1234)
    }
}
