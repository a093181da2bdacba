import SDP
import Testing

@testable import Media

@Suite("Media session: receive state made with the first packet")
struct MediaSessionReceptionTests {
    /// The receive side of a session's negotiated stream; `nil` when it has none (or no stream).
    private func reception(_ session: MediaSession<String>) -> StreamReception? {
        guard case .streaming(let stream) = session.state else { return nil }
        return stream.reception
    }

    private func isStreaming(_ session: MediaSession<String>) -> Bool {
        guard case .streaming = session.state else { return false }
        return true
    }

    @Test func aSessionThatReceivesNothingKeepsNoReceiveState() throws {
        // Alice takes early media: Bob sends and Alice only listens, so no RTP reaches Bob (RTCP does).
        var call = try Call()
        call.alice.session.setActivity(.earlyMedia)
        call.network.run(until: .seconds(5))
        #expect(isStreaming(call.bob.session) && reception(call.bob.session) == nil)
        #expect(call.bob.session.statistics.packetsSent > 200)
        #expect(call.bob.session.statistics.packetsReceived == 0)
        #expect(call.bob.session.statistics.rtcpSent > 0 && call.bob.session.statistics.rtcpReceived > 0)
        // Alice's was made with Bob's first packet (and RTCP reports the source), and it plays.
        #expect(reception(call.alice.session) != nil)
        #expect(call.alice.audio.hearsTone(440))
        // Once Alice sends, Bob's is made too and counts what arrives.
        call.alice.session.setSending(.audio)
        call.network.run(until: .seconds(7))
        #expect(reception(call.bob.session) != nil)
        #expect(call.bob.session.statistics.packetsReceived > 0)
        #expect(call.bob.audio.hearsTone(440))
    }
}
