import Media
import SDP
import Testing

/// Opus DTX (RFC 7587 §3.1.3, `usedtx=1`): a peer asked for DTX may go quiet in silence, and its RTCP then
/// keeps the media timeout from firing.
@Suite("Media: Opus DTX and the media timeout")
struct MediaSessionDTXTests {
    private static func opus(dtx: Bool) -> [Codec] {
        var codec = Codec.opus()
        if dtx { codec.formatParameters = (codec.formatParameters ?? "") + ";usedtx=1" }
        return [codec, .telephoneEvent()]
    }

    @Test(arguments: [true, false])
    func rtcpKeepsAQuietDTXPeerAlive(dtx: Bool) throws {
        var configuration = MediaSessionConfiguration()
        configuration.mediaTimeout = .seconds(10)
        var call = try Call(Negotiation(codecs: Self.opus(dtx: dtx)), configuration: configuration)
        call.network.run(until: .seconds(3))
        // Bob goes quiet (a DTX silence): no RTP, his reports go on.
        call.bob.session.setSending(.off)
        call.network.run(until: .seconds(40))
        let timeouts = call.alice.events.filter { $0.event == .mediaTimeout }
        #expect(call.alice.session.statistics.rtcpReceived >= 4)
        #expect(timeouts.isEmpty == dtx)
    }
}
